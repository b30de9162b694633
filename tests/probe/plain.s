# A program whose only DWARF is an assembler's (gcc -g plain.s): capture
# probe refuses its language (tests/probe/test-probe.sh).
	.text
	.globl	main
	.type	main, @function
main:
	xorl	%eax, %eax
	ret
	.size	main, .-main
	.section	.note.GNU-stack,"",@progbits
