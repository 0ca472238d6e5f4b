//go:build !race

package app

// raceEnabled says the tests run under the race detector.
const raceEnabled = false
