// SPDX-License-Identifier: MIT
/* Rust functions' names as a probe spec writes them (bpf/rust-names.h). */
#include <stdlib.h>
#include <string.h>
#include "bpf/rust-names.h"
#include "unit.h"

/* rust_name(@linkage, @dw_name) is @want (NULL: not Rust's). */
static void name_is(const char *what, const char *linkage, const char *dw_name,
		    const char *want)
{
	char *got = rust_name(linkage, dw_name);

	if (want ? got && !strcmp(got, want) : !got)
		pass(what);
	else
		fail(what, "got \"%s\", want \"%s\"", got ? got : "(null)",
		     want ? want : "(null)");
	free(got);
}

static void base_is(const char *what, const char *name, const char *want)
{
	char *got = rust_base(name);

	check(what, !strcmp(got, want), got);
	free(got);
}

int main(void)
{
	name_is("legacy: the hash left out", "_ZN4till4shop4Till5apply17h0123456789abcdefE",
		"apply", "till::shop::Till::apply");
	name_is("legacy: a generic function's arguments from DW_AT_name",
		"_ZN4till4shop5audit17h0123456789abcdefE", "audit<till::shop::Till>",
		"till::shop::audit::<till::shop::Till>");
	name_is("legacy: a generic impl's arguments first",
		"_ZN4till4shop12Raw$LT$T$GT$4tick17h0123456789abcdefE",
		"tick<till::Mem, u8>", "till::shop::Raw<till::Mem>::tick::<u8>");
	/* a tuple's comma is not one between arguments */
	name_is("legacy: a tuple argument of a generic impl",
		"_ZN4till4shop12Raw$LT$T$GT$4tick17h0123456789abcdefE",
		"tick<(u32, u64)>", "till::shop::Raw<(u32, u64)>::tick");
	name_is("legacy: an array argument with a slice of tuples",
		"_ZN4till4shop12Raw$LT$T$GT$4tick17h0123456789abcdefE",
		"tick<[(u8, u8); 2], &[(i8, i8)]>",
		"till::shop::Raw<[(u8, u8); 2]>::tick::<&[(i8, i8)]>");
	name_is("legacy: a fn type's arrow is not a closing '>'",
		"_ZN4till4shop12Raw$LT$T$GT$4tick17h0123456789abcdefE",
		"tick<fn(u8, u8) -> u8, u8>", "till::shop::Raw<fn(u8, u8) -> u8>::tick::<u8>");
	name_is("legacy: lifetimes left out", "_ZN4till4shop5audit17h0123456789abcdefE",
		"audit<'a, u8>", "till::shop::audit::<u8>");
	name_is("legacy: 17 arguments left out, not cut to 16",
		"_ZN4till4shop5audit17h0123456789abcdefE",
		"audit<u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, i8>",
		"till::shop::audit");
	name_is("a C function is not Rust's", "ledger_apply", "ledger_apply", NULL);
	name_is("no linkage name", NULL, "main", NULL);
	base_is("base: a turbofish left out", "till::shop::audit::<till::shop::Till>",
		"till::shop::audit");
	base_is("base: an impl's arguments left out", "till::shop::Raw<(u32, u64)>::tick::<u8>",
		"till::shop::Raw::tick");
	base_is("base: a fn type's arrow inside", "till::f::<fn(u8) -> u8>::g", "till::f::g");
	base_is("base: a trait's qualified path kept", "<till::Till as core::fmt::Debug>::fmt",
		"<till::Till as core::fmt::Debug>::fmt");
	return unit_status();
}
