package polyomino

import (
	"sync/atomic"
	"syscall"
	"unsafe"
)

// adviseHugePages asks the kernel to back a large table with huge pages:
// the probes land at random in gigabytes, and with 4 KiB pages nearly each
// one also misses the TLB. Only whole 2 MiB pages inside the table are
// advised; failure (no transparent huge pages) is harmless.
func adviseHugePages(words []atomic.Uint64) {
	const huge = 2 << 20
	if len(words)*8 < 4*huge {
		return
	}
	start := uintptr(unsafe.Pointer(&words[0]))
	end := start + uintptr(len(words))*8
	a := (start + huge - 1) &^ (huge - 1)
	b := end &^ (huge - 1)
	if b <= a {
		return
	}
	all := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(words)*8)
	_ = syscall.Madvise(all[a-start:b-start], 14) // MADV_HUGEPAGE
}

// newNearTable allocates a worker's endgame table (2 MiB) on one huge page:
// twice the size, cut at a 2 MiB boundary.
func newNearTable() []nearEntry {
	const huge = 2 << 20
	n := 1 << nearBits
	buf := make([]nearEntry, 2*n)
	start := uintptr(unsafe.Pointer(&buf[0]))
	skip := int(((start+huge-1)&^(huge-1) - start) / unsafe.Sizeof(nearEntry{}))
	near := buf[skip : skip+n : skip+n]
	mem := unsafe.Slice((*byte)(unsafe.Pointer(&near[0])), n*int(unsafe.Sizeof(nearEntry{})))
	_ = syscall.Madvise(mem, 14) // MADV_HUGEPAGE
	return near
}
