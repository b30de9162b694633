// Package dial counts the gauge's readings: a package variable of a
// package whose path has a slash (capture.test/gauge/dial.Ticks).
package dial

// Ticks is how many times the dial was read.
var Ticks int64

// Tick reads the dial once more.
func Tick() int64 {
	Ticks++
	return Ticks
}
