//go:build !unix

package main

func limitOpenFiles(string) {}
