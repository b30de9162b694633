//go:build !seededbug

package main

// seededBug is true only in the test's build (-tags seededbug, seeded_bug.go).
const seededBug = false

func seededEarly(string) bool { return false }

func (w *workload) putEarly(int, string, string) error { panic("not built") }
