// SPDX-License-Identifier: MIT
/*
 * The tokenizer's fast path (json-tokens-fast.h): AVX2 where the CPU has
 * it, nothing elsewhere.  What it accepts, json-tokens.c's value() would
 * tokenize the same; what it does not, value() decides.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "json-token.h"
#include "json-tokens-fast.h"
#include "json-lex.h"

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
	cp = json_hex_value(esc + 2);
	if (cp < 0 || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	return json_written_so(esc, (uint32_t)cp, 6);
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

/* A number at @p as token @i, as value() reads it: its length, or 0. */
static size_t number_at(struct json_tokens *t, unsigned i, const char *p,
			const char *end)
{
	const char *why, *q = json_lex_number(t, &t->tok[i], p, end, &why);

	return why ? 0 : (size_t)(q - p);
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
			k->len = (unsigned)number_at(t, i, p, t->text + len);
	} else {
		k->len = (unsigned)number_at(t, i, p, t->text + len);
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
int json_tokenize_fast(struct json_tokens *t, size_t len)
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
int json_tokenize_fast(struct json_tokens *t, size_t len)
{
	(void)t, (void)len;
	return -1;
}
#endif
