// SPDX-License-Identifier: MIT
/* A strict JSON tokenizer: see json-tokens.h. */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "json-tokens.h"

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

static inline int ordinary(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

struct scan {
	struct json_tokens *t;
	const char *p, *end;
	const char *why;
};

/* Where json_string() puts what it returns: a block per need. */
struct json_strings {
	struct json_strings *next;
	size_t used, size;
	char data[];
};

/*
 * The bytes of @w (8 of a string's, in memory order) that end a run of
 * bytes a string keeps as they are: '"', '\\', control and non-ASCII
 * bytes; each one's high bit, and maybe bits after the first one's.
 * Strings are most of a trace's bytes: they are read a word at a time.
 */
static inline uint64_t special_bytes(uint64_t w)
{
	uint64_t q = w ^ (ONES * '"'), b = w ^ (ONES * '\\');

	return (((q - ONES) & ~q) | ((b - ONES) & ~b) |
		((w - ONES * 0x20) & ~w) | w) & HIGHS;
}

/* Skip to the first special byte of a string (or its last 7 bytes). */
static inline const char *skip_ordinary(const char *p, const char *end)
{
	uint64_t word, special;

	while (end - p >= 8) {
		memcpy(&word, p, 8);
		special = special_bytes(word);
		if (special) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			return p + (__builtin_ctzll(special) >> 3);
#else
			break;
#endif
		}
		p += 8;
	}
	while (p < end && ordinary((unsigned char)*p))
		p++;
	return p;
}


static int fail(struct scan *s, const char *why)
{
	s->why = why;
	return -1;
}

static inline unsigned new_token(struct scan *s, unsigned char type)
{
	struct json_tokens *t = s->t;

	if (t->n == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 64;
		t->tok = xrealloc(t->tok, t->alloc * sizeof(*t->tok));
	}
	t->tok[t->n] = (struct json_token){ .type = type,
		.start = (unsigned)(s->p - t->text), .next = t->n + 1 };
	return t->n++;
}

/* Whitespace; between tokens, it makes copying the text wrong. */
static inline void skip_ws(struct scan *s)
{
	const char *from = s->p;

	if (s->p < s->end && (unsigned char)*s->p > ' ')
		return;
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' ||
				 *s->p == '\n' || *s->p == '\r'))
		s->p++;
	if (s->p != from && s->t->n)
		s->t->spaced = 1;
}

/* JSON's two-character escapes, and the characters they stand for. */
static const char short_escapes[] = "\"\\/bfnrt";
static const char short_escaped[] = "\"\\/\b\f\n\r\t";

/* The 4 hex digits at @p as a number; -1 if they are not. */
static long hex_value(const char *p)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

static uint32_t join_surrogates(uint32_t hi, uint32_t lo)
{
	return 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
}

static int hex4(struct scan *s, uint32_t *v)
{
	long h;

	if (s->end - s->p < 4)
		return fail(s, "truncated \\u escape");
	h = hex_value(s->p);
	if (h < 0)
		return fail(s, "invalid \\u escape");
	s->p += 4;
	*v = (uint32_t)h;
	return 0;
}

static char *put_utf8(char *w, uint32_t cp)
{
	if (cp < 0x80) {
		*w++ = (char)cp;
	} else if (cp < 0x800) {
		*w++ = (char)(0xc0 | cp >> 6);
		*w++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*w++ = (char)(0xe0 | cp >> 12);
		*w++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*w++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*w++ = (char)(0xf0 | cp >> 18);
		*w++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*w++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*w++ = (char)(0x80 | (cp & 0x3f));
	}
	return w;
}

/* A \uXXXX escape (s->p after the 'u'), surrogate pairs joined. */
static int unicode_escape(struct scan *s, uint32_t *cp)
{
	uint32_t lo;

	if (hex4(s, cp))
		return -1;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return fail(s, "lone low surrogate in a \\u escape");
	if (*cp < 0xd800 || *cp > 0xdbff)
		return 0;
	if (s->end - s->p < 2 || s->p[0] != '\\' || s->p[1] != 'u')
		return fail(s, "lone high surrogate in a \\u escape");
	s->p += 2;
	if (hex4(s, &lo))
		return -1;
	if (lo < 0xdc00 || lo > 0xdfff)
		return fail(s, "lone high surrogate in a \\u escape");
	*cp = join_surrogates(*cp, lo);
	return 0;
}

/*
 * Whether an escape is how json_write_string() writes the character it
 * stands for: \" \\ \b \f \n \r \t, and \u00xx for other control
 * characters.  A string whose escapes all are is written as its text.
 */
static int written_so(const char *esc, uint32_t cp, size_t n)
{
	static const char shorts[] = "\b\f\n\r\t";

	if (n == 2)
		return esc[1] != '/';
	return cp < 0x20 && !strchr(shorts, (int)cp) &&
	       !memcmp(esc + 2, "00", 2) &&
	       !(esc[4] >= 'A' && esc[4] <= 'F') &&
	       !(esc[5] >= 'A' && esc[5] <= 'F');
}

/* One escape (s->p at the backslash): the character it stands for. */
static int escape(struct scan *s, uint32_t *cp, int *as_is)
{
	const char *esc = s->p++;
	const char *e = s->p < s->end ? strchr(short_escapes, *s->p) : NULL;

	if (e && *e) {
		s->p++;
		*cp = (unsigned char)short_escaped[e - short_escapes];
	} else if (s->p < s->end && *s->p == 'u') {
		s->p++;
		if (unicode_escape(s, cp))
			return -1;
	} else {
		return fail(s, "invalid escape in a JSON string");
	}
	if (!written_so(esc, *cp, (size_t)(s->p - esc)))
		*as_is = 0;
	return 0;
}

/* The string whose text starts at s->p (after its quote): checked. */
static int string(struct scan *s, unsigned i)
{
	struct json_token *k = &s->t->tok[i];
	int as_is = 1, escaped = 0;

	k->type = JT_STRING;
	k->start = (unsigned)(s->p - s->t->text);
	for (;;) {
		uint32_t cp;
		int n;

		s->p = skip_ordinary(s->p, s->end);
		if (s->p == s->end)
			return fail(s, "unterminated JSON string");

		unsigned char c = (unsigned char)*s->p;

		if (c == '"')
			break;
		if (c == '\\') {
			escaped = 1;
			if (escape(s, &cp, &as_is))
				return -1;
			continue;
		}
		if (c < 0x20)
			return fail(s, "control character in a JSON string");
		n = utf8_decode((const unsigned char *)s->p, &cp);
		if (!n)
			return fail(s, "invalid UTF-8 in a JSON string");
		s->p += n;
	}
	k = &s->t->tok[i];
	k->len = (unsigned)(s->p - s->t->text) - k->start;
	k->escaped = (unsigned char)escaped;
	k->as_is = (unsigned char)as_is;
	s->p++;
	return 0;
}

static int digits(struct scan *s)
{
	const char *from = s->p;

	while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
		s->p++;
	return s->p > from ? 0 : fail(s, "invalid JSON number");
}

/* The double of a number token (strtod wants its text terminated). */
static double number_value(const struct json_tokens *t, const struct json_token *k)
{
	char small[64], *buf = k->len < sizeof(small) ? small : xmalloc(k->len + 1);
	double d;

	memcpy(buf, t->text + k->start, k->len);
	buf[k->len] = '\0';
	d = strtod(buf, NULL);
	if (buf != small)
		free(buf);
	return d;
}

/*
 * A number: its text is written as it is when it is an integer of at most
 * 15 digits (exact as a double, and what write_integer() would print),
 * else through the double cJSON would have made of it.
 */
static int number(struct scan *s, unsigned i)
{
	struct json_token *k = &s->t->tok[i];
	const char *from = s->p;
	int integer = 1;

	if (*s->p == '-')
		s->p++;
	if (s->p < s->end && *s->p == '0')
		s->p++;
	else if (digits(s))
		return -1;
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		integer = 0;
		if (digits(s))
			return -1;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		integer = 0;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (digits(s))
			return -1;
	}
	k->type = JT_NUMBER;
	k->len = (unsigned)(s->p - from);
	k->as_is = integer && k->len - (*from == '-') <= 15 &&
		   !(k->len == 2 && *from == '-');
	if (!k->as_is && !isfinite(number_value(s->t, k)))
		return fail(s, "a JSON number out of range (not finite)");
	return 0;
}

static int literal(struct scan *s, unsigned i, const char *word,
		   unsigned char type)
{
	size_t n = strlen(word);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n))
		return fail(s, "not a JSON value");
	s->t->tok[i].type = type;
	s->t->tok[i].len = (unsigned)n;
	s->p += n;
	return 0;
}

/* An object member's key and its colon. */
static int key(struct scan *s)
{
	unsigned i;

	skip_ws(s);
	if (s->p == s->end || *s->p != '"')
		return fail(s, s->p == s->end ? "truncated JSON value" :
			    "expected a string key in a JSON object");
	i = new_token(s, JT_STRING);
	s->p++;
	if (string(s, i))
		return -1;
	skip_ws(s);
	if (s->p == s->end || *s->p != ':')
		return fail(s, "expected : after a key in a JSON object");
	s->p++;
	return 0;
}

/* A scalar at s->p as token @i. */
static int scalar(struct scan *s, unsigned i)
{
	switch (*s->p) {
	case '"':
		s->p++;
		return string(s, i);
	case 't':
		return literal(s, i, "true", JT_TRUE);
	case 'f':
		return literal(s, i, "false", JT_FALSE);
	case 'n':
		return literal(s, i, "null", JT_NULL);
	}
	if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9'))
		return number(s, i);
	return fail(s, "not a JSON value");
}

/*
 * After a value: close the containers that end here; 1 when the top
 * level value is complete, 0 when another value follows.
 */
static int after_value(struct scan *s, unsigned *stack, int *depth)
{
	while (*depth) {
		struct json_token *c = &s->t->tok[stack[*depth - 1]];
		int object = c->type == JT_OBJECT;

		skip_ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			return object && key(s) ? -1 : 0;
		}
		if (s->p == s->end || *s->p != (object ? '}' : ']'))
			return fail(s, s->p == s->end ? "truncated JSON value" :
				    object ? "expected , or } in a JSON object" :
				    "expected , or ] in a JSON array");
		s->p++;
		c->next = s->t->n;
		c->len = (unsigned)(s->p - s->t->text) - c->start;
		--*depth;
	}
	return 1;
}

static int value(struct scan *s)
{
	unsigned stack[JSON_TOKENS_DEPTH];
	int depth = 0, done = 0;

	do {
		skip_ws(s);
		if (s->p == s->end)
			return fail(s, depth ? "truncated JSON value" :
				    "no JSON value");

		char c = *s->p;
		unsigned i = new_token(s, JT_NULL);

		if (c == '{' || c == '[') {
			if (depth == JSON_TOKENS_DEPTH)
				return fail(s, "JSON nested too deep");
			s->t->tok[i].type = c == '{' ? JT_OBJECT : JT_ARRAY;
			stack[depth++] = i;
			s->p++;
			skip_ws(s);
			if (s->p < s->end && *s->p == (c == '{' ? '}' : ']')) {
				s->p++;
				s->t->tok[i].len = (unsigned)(s->p - s->t->text) -
						   s->t->tok[i].start;
				depth--;
			} else if (c == '{' && key(s)) {
				return -1;
			} else {
				continue;
			}
		} else if (scalar(s, i)) {
			return -1;
		}
		done = after_value(s, stack, &depth);
		if (done < 0)
			return -1;
	} while (!done);
	return 0;
}

/*
 * The fast path, for x86-64 with AVX2, PCLMUL and BMI (AVX-512 was no
 * faster on the machine measured).
 *
 * Most texts a folder reads are valid, so the fast path only has to be
 * right when it accepts: on anything it does not like (an error, or what
 * it leaves to the code above: non-ASCII bytes, surrogate escapes,
 * nesting at the limit) it gives up, and json_tokenize() runs value()
 * from the start, which makes the same tokens or says what is wrong and
 * where.  So everything here may refuse more than value() does, never
 * less, and must make exactly its tokens.
 *
 * value() spends most of its time deciding, byte after byte, what comes
 * next.  Here vector compares classify 64 bytes at a time (a bit per
 * byte: quotes, backslashes, whitespace, { } [ ] : , and bytes below
 * 0x20 or above 0x7f), and a few operations on those 64-bit words find
 * which quotes are escaped, which bytes are inside strings, and the
 * bytes where the grammar has something to decide, the "events":
 *
 *   - each quote that opens or closes a string,
 *   - the first backslash of each run of them (inside strings),
 *   - { } [ ] : , outside strings,
 *   - the first byte of a number or literal: outside strings, none of
 *     those nor whitespace, after one of those or whitespace.
 *
 * A state machine takes the events in order and makes the tokens; it
 * never reads the bytes between them, string contents and whitespace
 * (numbers and literals it reads with the code above).  The errors that
 * make no event are in the block's bits: a control byte or non-ASCII
 * byte anywhere but whitespace outside strings, a backslash outside one.
 * Whitespace between tokens (t->spaced) is counted, not skipped.
 *
 * Stage one writes the offsets of all events into an array; stage two,
 * the state machine, reads them one after the other.  Each token starts
 * at an event, so there are no more tokens than events.
 */
#if defined(__x86_64__)
#include <immintrin.h>

#define EVEN_BITS 0x5555555555555555ull
#define ODD_BITS 0xaaaaaaaaaaaaaaaaull

/* A 64-byte block of text as bit masks (bit i: byte i). */
struct block {
	uint64_t quote, backslash, ws, op;
	uint64_t low;           /* below 0x20 or above 0x7f (signed < 0x20) */
};

/* What a block leaves to the next. */
struct carry {
	uint64_t in_string;     /* all ones: the next block starts in a string */
	uint64_t escaped;       /* 1: the next block's first byte is escaped */
	uint64_t backslash;     /* 1: the block ended with a backslash */
	uint64_t delim;         /* 1: it ended with whitespace, a quote or op */
};

/*
 * Whitespace and the structural characters are found by table: a byte's
 * low nibble picks the only character of the class that could be it (0
 * where none: no byte with a nonzero nibble is 0, and ' ' takes nibble 0).
 * '[' and ']' share nibbles with '{' and '}': ORing 0x20 folds them onto
 * those (and two control bytes onto ',' and ':', refused anyway).  The
 * shuffle gives 0 for bytes above 0x7f.
 */
#define WS_TABLE ' ', 0, 0, 0, 0, 0, 0, 0, 0, '\t', '\n', 0, 0, '\r', 0, 0
#define OP_TABLE 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ':', '{', ',', '}', 0, 0

/* The bits of the bytes of 32-byte @v equal to those of @w. */
__attribute__((target("avx2"), always_inline))
static inline uint32_t equal_avx2(__m256i v, __m256i w)
{
	return (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, w));
}

/* Half a block, 32 bytes at @p, into the bits @shift up of @b. */
__attribute__((target("avx2"), always_inline))
static inline void classify_half_avx2(const char *p, struct block *b,
				      int shift)
{
	const __m256i ws_table = _mm256_setr_epi8(WS_TABLE, WS_TABLE);
	const __m256i op_table = _mm256_setr_epi8(OP_TABLE, OP_TABLE);
	__m256i v = _mm256_loadu_si256((const __m256i *)p);
	__m256i fold = _mm256_or_si256(v, _mm256_set1_epi8(0x20));

	b->quote |= (uint64_t)equal_avx2(v, _mm256_set1_epi8('"')) << shift;
	b->backslash |= (uint64_t)equal_avx2(v, _mm256_set1_epi8('\\')) << shift;
	b->ws |= (uint64_t)equal_avx2(_mm256_shuffle_epi8(ws_table, v), v) <<
		 shift;
	b->op |= (uint64_t)equal_avx2(_mm256_shuffle_epi8(op_table, fold),
				      fold) << shift;
	b->low |= (uint64_t)(uint32_t)_mm256_movemask_epi8(
		_mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), v)) << shift;
}

__attribute__((target("avx2"), always_inline))
static inline void classify_avx2(const char *p, struct block *b)
{
	*b = (struct block){ 0 };
	classify_half_avx2(p, b, 0);
	classify_half_avx2(p + 32, b, 32);
}

/*
 * The bytes escaped by a backslash: those after a run of an odd number of
 * them.  Adding a run's first bit to the run carries to the bit after
 * it; a run of odd length that started at an even bit ends before an odd
 * one, and the other way round, hence the two sums.  A backslash escaped
 * from the block before starts nothing; a run reaching past the block is
 * odd if it started at an odd bit, which the sum's overflow tells.
 */
static inline uint64_t escaped_bytes(uint64_t backslash, uint64_t *carry)
{
	uint64_t b = backslash & ~*carry, first = b & ~(b << 1);
	uint64_t even = b + (first & EVEN_BITS), odd;
	uint64_t was = *carry;

	*carry = __builtin_add_overflow(b, first & ODD_BITS, &odd);
	return (even & ~b & ODD_BITS) | (odd & ~b & EVEN_BITS) | was;
}

/*
 * Bit i: the quotes up to byte i are odd in number.  A carry-less
 * multiply by all ones xors each bit into all the higher ones.
 */
__attribute__((target("pclmul")))
static inline uint64_t prefix_xor(uint64_t x)
{
	__m128i all = _mm_set1_epi8(-1);

	return (uint64_t)_mm_cvtsi128_si64(
		_mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)x), all, 0));
}

/*
 * The events of block @b (its bytes in @valid), after the state @k
 * left by the block before; adds to *@bad the bytes refused, to *@ws the
 * whitespace outside strings.
 */
__attribute__((target("pclmul")))
static inline uint64_t block_events(const struct block *b, struct carry *k,
				    uint64_t valid, uint64_t *bad,
				    uint64_t *ws)
{
	uint64_t quote = b->quote & ~escaped_bytes(b->backslash, &k->escaped);
	/* Opening quotes are in, closing ones out. */
	uint64_t in = prefix_xor(quote) ^ k->in_string, out = ~in;
	uint64_t delim = b->ws | b->op | b->quote;
	uint64_t runs = b->backslash & ~(b->backslash << 1 | k->backslash);
	uint64_t scalar = ~delim & (delim << 1 | k->delim);

	k->in_string = (uint64_t)((int64_t)in >> 63);
	k->backslash = b->backslash >> 63;
	k->delim = delim >> 63;
	*bad |= (b->backslash & out) | (b->low & (in | ~b->ws));
	*ws += (uint64_t)__builtin_popcountll(b->ws & out & valid);
	return (quote | runs | ((b->op | scalar) & out)) & valid;
}

/*
 * Stage one: the offsets of the events of @text, in order, into @ev,
 * then @len a few times (its NUL is no event the grammar wants, and so
 * stops stage two); into *@ws the whitespace outside strings.  Returns
 * the number of events, or -1 if a byte is refused.  The last block,
 * shorter, is read from a copy padded with spaces.
 */
__attribute__((always_inline))
static inline long find_events(const char *text, size_t len, uint32_t *ev,
			      uint64_t *ws,
			      void (*classify)(const char *, struct block *),
			      uint32_t *(*put)(uint32_t *, uint32_t, uint64_t))
{
	struct carry k = { .delim = 1 };
	uint32_t *first = ev;
	uint64_t bad = 0;
	char tail[64];

	*ws = 0;
	for (size_t at = 0; at < len; at += 64) {
		uint64_t valid = ~0ull, events;
		struct block b;

		if (len - at >= 64) {
			classify(text + at, &b);
		} else {
			memset(tail, ' ', sizeof(tail));
			memcpy(tail, text + at, len - at);
			classify(tail, &b);
			valid = (1ull << (len - at)) - 1;
		}
		events = block_events(&b, &k, valid, &bad, ws);
		ev = put(ev, (uint32_t)at, events);
	}
	for (int i = 0; i < 4; i++)
		ev[i] = (uint32_t)len;
	return bad ? -1 : ev - first;
}

/*
 * The offsets of @events' bits after @base, four at a time, in pairs (as
 * the compiler would otherwise vectorize, slowly): it may write up to
 * three more (the next block's overwrite them).
 */
__attribute__((target("bmi"), always_inline))
static inline uint32_t *put_events(uint32_t *ev, uint32_t base,
				   uint64_t events)
{
	uint32_t *end = ev + __builtin_popcountll(events);
	uint64_t bases = base * 0x100000001ull, pair;

	for (; events; ev += 4) {
		pair = _tzcnt_u64(events);
		events = _blsr_u64(events);
		pair |= _tzcnt_u64(events) << 32;
		events = _blsr_u64(events);
		pair += bases;
		memcpy(ev, &pair, sizeof(pair));
		pair = _tzcnt_u64(events);
		events = _blsr_u64(events);
		pair |= _tzcnt_u64(events) << 32;
		events = _blsr_u64(events);
		pair += bases;
		memcpy(ev + 2, &pair, sizeof(pair));
	}
	return end;
}

/* Room for the events of @len bytes, as put_events() writes them. */
#define EVENTS_ROOM(len) ((len) + 8)

__attribute__((target("avx2,pclmul,bmi")))
static long find_events_avx2(const char *text, size_t len, uint32_t *ev,
			    uint64_t *ws)
{
	return find_events(text, len, ev, ws, classify_avx2, put_events);
}

/*
 * Token @k in two 64-bit stores, which the compiler would make a dozen:
 * x86-64 is little-endian, and the layout is checked.
 */
static inline void put_token(struct json_token *k, unsigned type,
			     unsigned escaped, unsigned as_is, size_t start,
			     size_t len, unsigned next)
{
	uint64_t w[2] = {
		type | escaped << 8 | as_is << 16 | (uint64_t)start << 32,
		len | (uint64_t)next << 32,
	};

	memcpy(k, w, sizeof(w));
}

_Static_assert(sizeof(struct json_token) == 16 &&
	       offsetof(struct json_token, escaped) == 1 &&
	       offsetof(struct json_token, as_is) == 2 &&
	       offsetof(struct json_token, start) == 4 &&
	       offsetof(struct json_token, len) == 8 &&
	       offsetof(struct json_token, next) == 12,
	       "put_token() writes struct json_token as it is laid out");

/*
 * Room for @n tokens (grown as new_token() grows it): stage two makes at
 * most one per event, and one at the end of the text before it fails.
 */
static struct json_token *reserve_tokens(struct json_tokens *t, size_t n)
{
	if (t->alloc < n) {
		while (t->alloc < n)
			t->alloc = t->alloc ? 2 * t->alloc : 64;
		t->tok = xrealloc(t->tok, t->alloc * sizeof(*t->tok));
	}
	return t->tok;
}

/*
 * A \u escape at @esc in a string (no surrogates here): 1 if the string
 * may still be written as its text, 0 if not, -1 if refused.
 */
static int fast_unicode(const char *esc, const char *end)
{
	long cp;

	if (end - esc < 6)
		return -1;
	cp = hex_value(esc + 2);
	if (cp < 0 || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	return written_so(esc, (uint32_t)cp, 6);
}

/*
 * A run of backslashes at @p in a string: pairs of them are \\ escapes;
 * an odd one out escapes the byte after the run.  1 if the string may
 * still be written as its text, 0 if not, -1 if refused.
 */
static int fast_escapes(const char *p, const char *end)
{
	const char *run = p;

	while (*p == '\\')
		p++;
	if ((p - run) % 2 == 0)
		return 1;
	switch (*p) {
	case '"': case 'b': case 'f': case 'n': case 'r': case 't':
		return 1;
	case '/':
		return 0;
	case 'u':
		return fast_unicode(p - 1, end);
	}
	return -1;
}

/* What may follow a number or literal (the NUL at the end of the text). */
static const unsigned char ends_scalar[256] = {
	[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1,
	[','] = 1, [']'] = 1, ['}'] = 1, ['\0'] = 1,
};

static inline int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A number at @p as token @i by number(): its length, or 0. */
static size_t slow_number(struct json_tokens *t, unsigned i, const char *p,
			  const char *end)
{
	struct scan s = { .t = t, .p = p, .end = end };

	return number(&s, i) ? 0 : (size_t)(s.p - p);
}

/*
 * A number or literal at @at, as token @i: 0, or -1.  Short integers,
 * most of a trace's numbers, are read here; number() reads the others.
 */
static inline int fast_scalar(struct json_tokens *t, struct json_token *tok,
			      unsigned i, size_t len, size_t at)
{
	static const struct { char word[6]; unsigned char type, len; } lit[] = {
		{ "true", JT_TRUE, 4 }, { "false", JT_FALSE, 5 },
		{ "null", JT_NULL, 4 },
	};
	struct json_token *k = &tok[i];
	const char *p = t->text + at, *q = p + 1;
	int w = *p == 't' ? 0 : *p == 'f' ? 1 : *p == 'n' ? 2 : -1;

	put_token(k, JT_NUMBER, 0, 0, at, 0, i + 1);
	if (w >= 0) {
		k->type = lit[w].type;
		k->len = lit[w].len;
		if (len - at < k->len || memcmp(p, lit[w].word, k->len))
			return -1;
	} else if (*p >= '1' && *p <= '9') {
		while (is_digit(*q))
			q++;
		k->len = (unsigned)(q - p);
		k->as_is = 1;
		if (k->len > 15 || *q == '.' || *q == 'e' || *q == 'E')
			k->len = (unsigned)slow_number(t, i, p, t->text + len);
	} else {
		k->len = (unsigned)slow_number(t, i, p, t->text + len);
	}
	if (!k->len)
		return -1;
	return ends_scalar[(unsigned char)p[k->len]] ? 0 : -1;
}

/*
 * The string whose opening quote is at @open, as token @i, with escapes:
 * its events from @ev on, which are runs of backslashes and the closing
 * quote.  The events after it, or NULL.
 */
static const uint32_t *escaped_string(const char *text,
				      struct json_token *tok, unsigned i,
				      size_t open, const uint32_t *ev)
{
	int as_is = 1, e;
	size_t at;

	while (text[at = *ev++] == '\\') {
		/* The next event bounds a \u escape's digits. */
		e = fast_escapes(text + at, text + *ev);
		if (e < 0)
			return NULL;
		as_is &= e;
	}
	if (text[at] != '"')
		return NULL;
	put_token(&tok[i], JT_STRING, 1, (unsigned)as_is, open + 1,
		  at - open - 1, i + 1);
	return ev;
}

/*
 * The string whose opening quote is at @open, as token @i: mostly, its
 * next event is its closing quote.  The events after it, or NULL.
 */
static inline const uint32_t *fast_string(const char *text,
					  struct json_token *tok, unsigned i,
					  size_t open, const uint32_t *ev)
{
	size_t at = *ev;

	if (text[at] != '"')
		return text[at] == '\\' ?
		       escaped_string(text, tok, i, open, ev) : NULL;
	put_token(&tok[i], JT_STRING, 0, 1, open + 1, at - open - 1, i + 1);
	return ev + 1;
}

/* What a value is in (the stack keeps a container's token index * 4 + it). */
enum { IN_TEXT, IN_OBJECT, IN_ARRAY };

/*
 * Stage two: the tokens, from the @n events @ev of t->text[0, @len) and
 * its whitespace @ws outside strings.  0, or -1.
 */
static int fast_parse(struct json_tokens *t, size_t len, const uint32_t *ev,
		      size_t n, uint64_t ws)
{
	const char *text = t->text;
	unsigned stack[JSON_TOKENS_DEPTH + 1], *top = stack, i = 0;
	struct json_token *tok = reserve_tokens(t, n + 1), *k;
	size_t at;

	/*
	 * A label per place in the grammar, where @at is the event there;
	 * NEXT() takes the next event.  @i counts the tokens; @top is the
	 * innermost container (stack[0]: the text itself).
	 */
#define NEXT() (at = *ev++)
	*top = IN_TEXT;
	NEXT();
value:
	switch (text[at]) {
	case '"':
		ev = fast_string(text, tok, i++, at, ev);
		if (!ev)
			return -1;
		goto after_value;
	case '{':
		if (top == stack + JSON_TOKENS_DEPTH)
			return -1;
		put_token(&tok[i], JT_OBJECT, 0, 0, at, 0, i + 1);
		*++top = i++ << 2 | IN_OBJECT;
		if (text[NEXT()] == '}')
			goto close;
		goto key;
	case '[':
		if (top == stack + JSON_TOKENS_DEPTH)
			return -1;
		put_token(&tok[i], JT_ARRAY, 0, 0, at, 0, i + 1);
		*++top = i++ << 2 | IN_ARRAY;
		if (text[NEXT()] == ']')
			goto close;
		goto value;
	}
	if (fast_scalar(t, tok, i++, len, at))
		return -1;
	goto after_value;
key:
	if (text[at] != '"')
		return -1;
	ev = fast_string(text, tok, i++, at, ev);
	if (!ev)
		return -1;
	if (text[NEXT()] != ':')
		return -1;
	NEXT();
	goto value;
after_value:
	switch (*top & 3) {
	case IN_OBJECT:
		if (text[NEXT()] == ',') {
			NEXT();
			goto key;
		}
		if (text[at] != '}')
			return -1;
		goto close;
	case IN_ARRAY:
		if (text[NEXT()] == ',') {
			NEXT();
			goto value;
		}
		if (text[at] != ']')
			return -1;
		goto close;
	}
	/* The end: no more events. */
	if (*ev != len)
		return -1;
#undef NEXT
	t->n = i;
	/* Whitespace between tokens: all but what is before and after. */
	k = &tok[0];
	t->spaced = ws > k->start - (k->type == JT_STRING) +
		    (len - k->start - k->len - (k->type == JT_STRING));
	return 0;
close:
	k = &tok[*top-- >> 2];
	k->next = i;
	k->len = (unsigned)(at + 1 - k->start);
	goto after_value;
}

/*
 * 0: t->text[0, @len) is tokenized; -1: leave it to value().  The events
 * of a line of a trace fit on the stack.
 */
static int tokenize_fast(struct json_tokens *t, size_t len)
{
	uint32_t small[2048], *ev = small;
	uint64_t ws;
	long n;

	if (!__builtin_cpu_supports("avx2") ||
	    !__builtin_cpu_supports("pclmul") || !__builtin_cpu_supports("bmi"))
		return -1;
	if (EVENTS_ROOM(len) > sizeof(small) / sizeof(*small))
		ev = xmalloc(EVENTS_ROOM(len) * sizeof(*ev));
	n = find_events_avx2(t->text, len, ev, &ws);
	if (n >= 0)
		n = fast_parse(t, len, ev, (size_t)n, ws);
	if (ev != small)
		free(ev);
	return n < 0 ? -1 : 0;
}
#else
static int tokenize_fast(struct json_tokens *t, size_t len)
{
	(void)t, (void)len;
	return -1;
}
#endif

static void strings_reset(struct json_tokens *t)
{
	struct json_strings *b = t->strings;

	while (b && b->next) {
		t->strings = b->next;
		free(b);
		b = t->strings;
	}
	if (b)
		b->used = 0;
}

const char *json_tokenize(struct json_tokens *t, const char *text, size_t len,
			  size_t *at)
{
	struct scan s = { .t = t, .p = text, .end = text + len };
	int spaced;

	t->text = text;
	t->n = 0;
	t->spaced = 0;
	strings_reset(t);
	if (len >= UINT_MAX) {
		*at = 0;
		return "JSON text too long";
	}
	if (!tokenize_fast(t, len))
		return NULL;
	t->n = 0;
	t->spaced = 0;
	if (!value(&s)) {
		spaced = t->spaced;
		skip_ws(&s);
		t->spaced = spaced;
		if (s.p == s.end)
			return NULL;
		s.why = "characters after the JSON value";
	}
	*at = (size_t)(s.p - text);
	return s.why;
}

void json_tokens_release(struct json_tokens *t)
{
	strings_reset(t);
	free(t->strings);
	free(t->tok);
	strbuf_release(&t->scratch);
	memset(t, 0, sizeof(*t));
}

/* Append string @k's characters to @sb (its text is valid: no checks). */
/* The escape at @p (valid: it was checked): its character; *@n its length. */
static uint32_t escaped_char(const char *p, size_t *n)
{
	uint32_t cp;

	if (p[1] != 'u') {
		*n = 2;
		return (unsigned char)short_escaped[strchr(short_escapes, p[1]) -
						    short_escapes];
	}
	cp = (uint32_t)hex_value(p + 2);
	*n = 6;
	if (cp >= 0xd800 && cp <= 0xdbff) {
		cp = join_surrogates(cp, (uint32_t)hex_value(p + 8));
		*n = 12;
	}
	return cp;
}

/*
 * String @k's characters to @sb: each escape decoded, or, with @rewrite,
 * written as json_write_string(JSON_COMPACT) writes its character (kept
 * when it is written so already); the bytes between escapes as they are.
 */
static void put_string(struct strbuf *sb, const struct json_tokens *t,
		       const struct json_token *k, int rewrite)
{
	const char *p = t->text + k->start, *end = p + k->len;

	while (p < end) {
		const char *run = p;
		char utf8[4];
		uint32_t cp;
		size_t n, len;

		while (p < end && *p != '\\')
			p++;
		strbuf_add(sb, run, (size_t)(p - run));
		if (p == end)
			break;
		cp = escaped_char(p, &n);
		len = (size_t)(put_utf8(utf8, cp) - utf8);
		if (!rewrite)
			strbuf_add(sb, utf8, len);
		else if (written_so(p, cp, n))
			strbuf_add(sb, p, n);
		else
			json_write_chars(sb, utf8, len, JSON_COMPACT);
		p += n;
	}
}

static void decode(struct strbuf *sb, const struct json_tokens *t,
		   const struct json_token *k)
{
	put_string(sb, t, k, 0);
}

int json_element(const struct json_tokens *t, int arr, unsigned k)
{
	if (!json_is(t, arr, JT_ARRAY))
		return -1;
	for (unsigned j = (unsigned)arr + 1; j < t->tok[arr].next;
	     j = t->tok[j].next)
		if (!k--)
			return (int)j;
	return -1;
}

unsigned json_length(const struct json_tokens *t, int i)
{
	unsigned n = 0;

	if (json_is(t, i, JT_ARRAY))
		for (unsigned j = (unsigned)i + 1; j < t->tok[i].next;
		     j = t->tok[j].next)
			n++;
	else if (json_is(t, i, JT_OBJECT))
		for (unsigned j = (unsigned)i + 1; j < t->tok[i].next;
		     j = t->tok[j + 1].next)
			n++;
	return n;
}

static char *strings_take(struct json_tokens *t, size_t n)
{
	struct json_strings *b = t->strings;

	if (!b || b->size - b->used < n) {
		size_t size = n > 4096 ? n : 4096;

		b = xmalloc(sizeof(*b) + size);
		b->next = t->strings;
		b->used = 0;
		b->size = size;
		t->strings = b;
	}
	b->used += n;
	return b->data + b->used - n;
}

const char *json_string(struct json_tokens *t, int i)
{
	const struct json_token *k;
	char *out;

	if (!json_is(t, i, JT_STRING))
		return NULL;
	k = &t->tok[i];
	if (k->escaped) {
		strbuf_reset(&t->scratch);
		decode(&t->scratch, t, k);
		out = strings_take(t, t->scratch.len + 1);
		memcpy(out, t->scratch.buf, t->scratch.len);
		out[t->scratch.len] = '\0';
		return out;
	}
	out = strings_take(t, k->len + 1);
	memcpy(out, t->text + k->start, k->len);
	out[k->len] = '\0';
	return out;
}

int json_escaped_string_is(const struct json_tokens *t, int i, const char *s,
			   size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	int same;

	decode(&sb, t, &t->tok[i]);
	same = sb.len == n && !memcmp(sb.buf, s, n);
	strbuf_release(&sb);
	return same;
}

int json_integer(const struct json_tokens *t, int i, long long *v)
{
	const struct json_token *k;
	double d;

	if (!json_is(t, i, JT_NUMBER))
		return -1;
	k = &t->tok[i];
	if (k->as_is) {
		const char *p = t->text + k->start;
		int neg = *p == '-';
		long long n = 0;

		for (p += neg; p < t->text + k->start + k->len; p++)
			n = n * 10 + (*p - '0');
		*v = neg ? -n : n;
		return 0;
	}
	d = number_value(t, k);
	if (d != floor(d) || fabs(d) >= 9007199254740992.0)
		return -1;
	*v = (long long)d;
	return 0;
}

/* Write a token that is not written as its text. */
static void write_rewritten(struct strbuf *sb, struct json_tokens *t,
			    const struct json_token *k)
{
	if (k->type == JT_NUMBER) {
		json_write_number(sb, number_value(t, k), JSON_COMPACT);
		return;
	}
	strbuf_add(sb, "\"", 1);
	put_string(sb, t, k, 1);
	strbuf_add(sb, "\"", 1);
}

/* Where token @k's text starts and ends (a string's quotes included). */
static unsigned text_start(const struct json_token *k)
{
	return k->start - (k->type == JT_STRING);
}

static unsigned text_end(const struct json_token *k)
{
	return k->start + k->len + (k->type == JT_STRING);
}

/* Token by token, for a text with whitespace between its tokens. */
static unsigned write_token(struct strbuf *sb, struct json_tokens *t,
			    unsigned i)
{
	const struct json_token *k = &t->tok[i];
	int object = k->type == JT_OBJECT;

	if (k->type != JT_OBJECT && k->type != JT_ARRAY) {
		if (k->type == JT_NUMBER || k->type == JT_STRING ? k->as_is : 1)
			strbuf_add(sb, t->text + text_start(k),
				   text_end(k) - text_start(k));
		else
			write_rewritten(sb, t, k);
		return i + 1;
	}
	strbuf_add(sb, object ? "{" : "[", 1);
	for (unsigned j = i + 1; j < k->next;) {
		if (j > i + 1)
			strbuf_add(sb, ",", 1);
		if (object) {
			write_token(sb, t, j++);
			strbuf_add(sb, ":", 1);
		}
		j = write_token(sb, t, j);
	}
	strbuf_add(sb, object ? "}" : "]", 1);
	return k->next;
}

/*
 * Without whitespace between tokens, the text is the output but for the
 * strings and numbers json_write() writes otherwise: copy the runs between
 * those, rewrite those.  Tokens [@first, @end), whose text ends at @to.
 */
static void write_span(struct strbuf *sb, struct json_tokens *t,
		       unsigned first, unsigned end, unsigned to)
{
	unsigned from = text_start(&t->tok[first]);

	for (unsigned j = first; j < end; j++) {
		const struct json_token *k = &t->tok[j];

		if ((k->type != JT_STRING && k->type != JT_NUMBER) || k->as_is)
			continue;
		strbuf_add(sb, t->text + from, text_start(k) - from);
		write_rewritten(sb, t, k);
		from = text_end(k);
	}
	strbuf_add(sb, t->text + from, to - from);
}

void json_tokens_write(struct strbuf *sb, struct json_tokens *t, int i)
{
	if (i < 0 || (unsigned)i >= t->n)
		return;
	if (t->spaced)
		write_token(sb, t, (unsigned)i);
	else
		write_span(sb, t, (unsigned)i, t->tok[i].next,
			   text_end(&t->tok[i]));
}

void json_tokens_write_members(struct strbuf *sb, struct json_tokens *t,
			       int from, int to)
{
	unsigned last = 0;

	for (unsigned j = (unsigned)from; j < (unsigned)to; j = t->tok[j + 1].next)
		last = j + 1;
	if (!last)
		return;
	if (!t->spaced) {
		/* the members are one run of the text, commas and all */
		write_span(sb, t, (unsigned)from, t->tok[last].next,
			   text_end(&t->tok[last]));
		return;
	}
	for (unsigned j = (unsigned)from; j < (unsigned)to; j = t->tok[j + 1].next) {
		if (j != (unsigned)from)
			strbuf_add(sb, ",", 1);
		write_token(sb, t, j);
		strbuf_add(sb, ":", 1);
		write_token(sb, t, j + 1);
	}
}
