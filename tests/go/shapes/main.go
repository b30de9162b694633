// SPDX-License-Identifier: MIT

// Shapes calls one generic function, Keep, with 18 types of distinct GC
// shapes, so that the binary holds 18 instantiations of it
// (main.Keep[go.shape.int8], ...): more than a probe spec may name by
// the function's name alone (tests/go/test-go-reads.sh).
package main

import "fmt"

//go:noinline
func Keep[T any](v T) T { return v }

type pair struct{ a, b int64 }

func main() {
	n := 0
	if Keep(int8(1)) == 1 {
		n++
	}
	Keep(int16(1))
	Keep(int32(1))
	Keep(int64(1))
	Keep(uint8(1))
	Keep(uint16(1))
	Keep(uint32(1))
	Keep(uint64(1))
	Keep(uintptr(1))
	Keep(float32(1))
	Keep(float64(1))
	Keep(complex64(1))
	Keep(complex128(1))
	Keep("one")
	Keep(true)
	Keep([2]int8{1, 2})
	Keep([3]byte{1, 2, 3})
	Keep(pair{1, 2})
	fmt.Println("kept", n)
}
