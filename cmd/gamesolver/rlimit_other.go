//go:build !unix

package main

// openFileLimit is unknown here: --max-connections 0 sets no cap.
func openFileLimit() uint64 { return 0 }
