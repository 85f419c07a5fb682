//go:build !linux

package polyomino

import "sync/atomic"

func adviseHugePages([]atomic.Uint64) {}

func newNearTable() []nearEntry { return make([]nearEntry, 1<<nearBits) }
