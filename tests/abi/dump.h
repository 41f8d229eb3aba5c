/*
 * The printing macros of the ABI layout dumps (layout_dump.c for
 * <infiniband/verbs.h>, cm_layout_dump.c for librdmacm's headers): one
 * fact per line, so that the dumps of two headers diff line by line.
 * Include after the headers under test.
 */
#ifndef ABI_DUMP_H
#define ABI_DUMP_H

#include <stdio.h>
#include <stddef.h>

static const char *pfx = "";

#ifdef EMU_V65
#define V65_BEGIN pfx = "v65 "
#define V65_END pfx = ""
#endif

#define STR2(x) #x
#define STR(x) STR2(x)

/* T names the struct being described; S/F/FN use it implicitly. */
#define S() printf("%ssize %s %zu\n", pfx, STR(T), sizeof(T))
#define F(f) printf("%sfield %s.%s off=%zu size=%zu\n", pfx, STR(T), #f, \
		    offsetof(T, f), sizeof(((T *)0)->f))
/* a function pointer member: offset, plus its exact type at compile time */
#define FN(f, type) do {						\
	_Static_assert(__builtin_types_compatible_p(			\
		__typeof__(((T *)0)->f), type), STR(T) "." #f);		\
	F(f);								\
} while (0)
#define K(c) printf("%sconst %s %lld\n", pfx, #c, (long long)(c))
#define KE(e) printf("%senum-size %s %zu\n", pfx, #e, sizeof(e))
/*
 * An exported or inline function: its exact prototype, checked at compile
 * time without referencing the symbol (the dumps link no library).
 */
#define SIG(name, type) do {						\
	_Static_assert(__builtin_types_compatible_p(			\
		__typeof__(&(name)), type), #name);			\
	printf("%sproto %s\n", pfx, #name);				\
} while (0)
/*
 * The same for __attribute__((const)) functions, whose type GCC marks in a
 * way no type name can spell: a mismatch is a distinct-pointer warning,
 * which abi_test.sh turns into an error.
 */
#define SIGC(name, type) do {						\
	(void)sizeof((type)0 == &(name));				\
	printf("%sproto %s\n", pfx, #name);				\
} while (0)

#endif
