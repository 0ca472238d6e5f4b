//go:build !race

package h1server

// raceEnabled says the tests run under the race detector.
const raceEnabled = false
