package main

import "strconv"

// gogcName is the target of the gateway run at GOGC=n (-gogc n): the
// gateway target runs at Go's default, 100, so the two side by side are
// what the garbage collector's pace costs a request and its tail.
func gogcName(n int) string { return "gateway-gogc" + strconv.Itoa(n) }

// gogcEnv sets the garbage collector's target of a gateway to n.
func gogcEnv(n int) []string { return []string{"GOGC=" + strconv.Itoa(n)} }
