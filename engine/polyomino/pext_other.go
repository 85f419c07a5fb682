//go:build !amd64 || !gc || purego

package polyomino

import "unsafe"

// havePext: PEXT is an amd64 instruction, used through gc's assembler
// (see pext_amd64.go).
var havePext = pextFast()

func pextFast() bool { return false }

func pextRows(dst *uint64, adj *uint64, k int, L *uint64) int { panic("pextRows without PEXT") }

func pextWords(x, L []uint64) uint64 { panic("pextWords without PEXT") }

func prefetch(p unsafe.Pointer) {}

func pextPack(dst, src, L *uint64, k int) { panic("pextPack without PEXT") }
