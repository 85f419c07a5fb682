package polyomino

import (
	"runtime"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// mapped is the number of bytes mapped for tables and not yet released.
var mapped atomic.Int64

// newWords allocates a table of n words. A large one is mapped from the
// kernel directly and advised onto huge pages before anything touches it:
// its pages are then zeroed by the kernel as the search first probes them,
// 2 MiB at a time, instead of the allocator clearing the whole table up
// front on 4 KiB pages (3.1 s for 1 GiB measured, before the first node,
// and the table then mostly on small pages). The mapping is released by
// Table.release, or when the Table is collected (the collector does not see
// this memory, so a table made per search must be released by it). Small
// tables, or a failed mapping, come from the Go heap.
func newWords(t *Table, n int) []atomic.Uint64 {
	const huge = 2 << 20
	size := n * 8
	if size < 4*huge {
		return make([]atomic.Uint64, n)
	}
	mem, err := syscall.Mmap(-1, 0, size+huge, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		w := make([]atomic.Uint64, n)
		adviseHugePages(w)
		return w
	}
	start := uintptr(unsafe.Pointer(&mem[0]))
	skip := int((start+huge-1)&^(huge-1) - start)
	_ = syscall.Madvise(mem[skip:skip+size], 14) // MADV_HUGEPAGE
	mapped.Add(int64(len(mem)))
	unmap := func(m []byte) {
		mapped.Add(-int64(len(m)))
		_ = syscall.Munmap(m)
	}
	c := runtime.AddCleanup(t, unmap, mem)
	t.free = func() {
		c.Stop()
		unmap(mem)
	}
	return unsafe.Slice((*atomic.Uint64)(unsafe.Pointer(&mem[skip])), n)
}

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

// newNearTable allocates a worker's endgame table (2 MiB) on huge pages:
// 2 MiB more than its size, cut at a 2 MiB boundary. (Tables of 2^16, 2^18
// and 2^19 entries were measured: no faster.)
func newNearTable() []nearEntry {
	const huge = 2 << 20
	n := 1 << nearBits
	buf := make([]nearEntry, n+huge/int(unsafe.Sizeof(nearEntry{})))
	start := uintptr(unsafe.Pointer(&buf[0]))
	skip := int(((start+huge-1)&^(huge-1) - start) / unsafe.Sizeof(nearEntry{}))
	near := buf[skip : skip+n : skip+n]
	mem := unsafe.Slice((*byte)(unsafe.Pointer(&near[0])), n*int(unsafe.Sizeof(nearEntry{})))
	_ = syscall.Madvise(mem, 14) // MADV_HUGEPAGE
	return near
}
