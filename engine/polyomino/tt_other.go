//go:build !linux

package polyomino

import "sync/atomic"

func newNearTable() []nearEntry { return make([]nearEntry, 1<<nearBits) }

func newWords(_ *Table, n int) []atomic.Uint64 { return make([]atomic.Uint64, n) }
