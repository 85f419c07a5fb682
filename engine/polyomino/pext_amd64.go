//go:build amd64 && gc && !purego

package polyomino

import "unsafe"

// The one-word compaction (cgraph.compact1) packs the rows of the parent
// graph with the processor's PEXT instruction (BMI2), where it is fast:
// Intel since Haswell, AMD since Zen 3. Elsewhere (AMD before Zen 3 runs
// PEXT in microcode, up to hundreds of cycles; other vendors' speed is not
// known; other compilers than gc, or the purego tag) the rows are rebuilt
// from the cells (cgraph.compact), which gives the same graph.

// havePext: compact1 may be used (a variable so that tests can turn it off).
var havePext = pextFast()

func pextFast() bool {
	maxLeaf, b, c, d := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	_, b7, _, _ := cpuid(7, 0)
	const popcnt, bmi1, bmi2 = 1 << 23, 1 << 3, 1 << 8
	if c1&popcnt == 0 || b7&bmi1 == 0 || b7&bmi2 == 0 {
		return false
	}
	vendor := string([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24),
		byte(d), byte(d >> 8), byte(d >> 16), byte(d >> 24),
		byte(c), byte(c >> 8), byte(c >> 16), byte(c >> 24)})
	switch vendor {
	case "GenuineIntel":
		return true
	case "AuthenticAMD", "HygonGenuine":
		a1, _, _, _ := cpuid(1, 0)
		family := a1 >> 8 & 0xf
		if family == 0xf {
			family += a1 >> 20 & 0xff
		}
		return family >= 0x19 // Zen 3 and later
	}
	return false // PEXT's speed unknown
}

func cpuid(leaf, sub uint32) (a, b, c, d uint32)

// pextRows writes to dst, for each vertex u of state L (k words, at most
// 64 vertices, in increasing order), the row adj[u*k:(u+1)*k] restricted
// to L and packed (bit i: the i-th vertex of L), and returns the number of
// vertices.
//
//go:noescape
func pextRows(dst *uint64, adj *uint64, k int, L *uint64) int

// pextWords is x restricted to the vertices of L (at most 64) and packed.
//
//go:noescape
func pextWords(x, L []uint64) uint64

// prefetch asks the processor to bring the line at p into the cache while
// the node does other work (search1, solveBool).
//
//go:noescape
func prefetch(p unsafe.Pointer)

// pextPack writes src (k words) restricted to the vertices of L (k words)
// and packed to dst: ceil(|L|/64) words (cgraph.compactK).
//
//go:noescape
func pextPack(dst, src, L *uint64, k int)
