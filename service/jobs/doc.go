// Package jobs runs long computations as jobs split into work units, in
// Redis Streams or in process.
//
// The games register job kinds (Kind): a kind plans a request into
// independent units, runs one unit, and combines the results of the units
// finished so far into the job's result, possibly before every unit has run
// (one refuted reply may decide a proof). The package does the rest: it
// stores jobs, hands units to workers, heartbeats them, reclaims the units
// of workers that died, hands units back on shutdown, and reports exact
// progress.
//
// A Manager works over a Store. Both stores keep the same semantics:
//
//   - NewMemoryStore keeps everything in the process (the embedded default),
//     optionally logging every job to a directory so that a restart loses
//     no job and no finished unit. The directory is flock-ed by one
//     process at a time: a second one would run the same jobs again. Its
//     log keeps no delivery counts: a restart starts them afresh (in
//     Redis a unit whose workers died MaxDeliveries times fails its job;
//     see "Shutdown and failures").
//   - NewRedisStore keeps jobs in Redis hashes and units in a Redis Stream
//     read by a consumer group, so that workers on many machines share them.
//
// # Redis layout
//
// Every key starts with "gs:jobs:". Job ids are 22 characters of base64url
// (128 random bits), so they never collide with the fixed names.
//
//	gs:jobs:stream          stream of units; fields job, unit (index), payload;
//	                        consumer group "workers", one consumer per worker
//	                        slot ("<worker name>/<slot>")
//	gs:jobs:<id>            hash: id type status created started finished
//	                        (unix ms) request total result error, and
//	                        slow ("1": a unit outlasted an express slot),
//	                        format (the kind's unit format, Versioned);
//	                        once finished, done (units done) and nodes
//	                        (theirs added up), and expires (unix ms)
//	gs:jobs:<id>:results    hash: unit index -> unit result (written once,
//	                        HSETNX; deleted when the job ends)
//	gs:jobs:<id>:nodes      hash: unit index -> nodes (final for finished
//	                        units, the latest report for running ones);
//	                        when the job ends, one field "all", their sum
//	gs:jobs:<id>:units      hash: unit index -> payload, the units not yet
//	                        in the stream (the job hash's "queued" is the
//	                        next index to queue)
//	gs:jobs:<id>:passed     hash: unit index -> when a worker first handed
//	                        the unit back for being of a later format than
//	                        it reads (unix ms; Versioned); a day's TTL
//	gs:jobs:active          set of the unfinished jobs' ids (Options.MaxActive)
//	gs:jobs:active:<client> set of one client's unfinished jobs' ids
//	                        (Options.MaxPerClient; the job hash's "client")
//	gs:jobs:finished        sorted set of the finished jobs' ids by their
//	                        ends (unix ms); ":bytes" a hash of their sizes,
//	                        ":total" their sum (MaxFinishedJobs,
//	                        MaxFinishedBytes)
//
// A job puts its first units in the stream (RedisStore.Window, 8 by
// default); each unit finished (its result written) queues the next at
// the stream's end, in the same script. Jobs so take turns in the
// workers: one with ten thousand units holds back a job submitted after
// it by at most a window of units. An idle worker (once a second at
// most) and a submission refused by Options.MaxActive first reconcile:
// ids of jobs that are gone or final leave gs:jobs:active, and a job with
// fewer than a window of units in flight gets its next ones (units
// finished by a server of an earlier version queue none). A server of an
// earlier version does not reconcile: after a rollback, windowed jobs
// wait for a worker of this version.
//
// Options.MaxActive and Options.MaxPerClient are checked and the job
// counted in one step (a script on the sets; the memory store's lock), so
// a burst of submissions cannot pass them together. (The memory
// store hands out the next unit of the job with the fewest units out.)
//
// When a job ends its hash records when it expires (the finished-job
// TTL after its end; no Redis TTL, which would make it evictable beside
// the cached answers under the deploy files' volatile-lru policy), and a
// job past it is read as gone; its results hash (the number of results
// kept as the job hash's "done") and units hash are deleted, and the job
// is filed in gs:jobs:finished. Past MaxFinishedJobs or MaxFinishedBytes
// there, the oldest finished jobs' keys are deleted before they expire
// (at most 100 at each job's end, with those past their expiry; an idle
// worker's reconcile, once a second at most, forgets those of the 20
// that ended first that are past their expiry, so that they go without a
// later end too). An unfinished job does not expire. (A job admitted
// under the caps is marked queued before it is written; the mark expires
// after a minute unless the job's write follows, so that a submission cut
// off in between does not hold its places for ever. A write that fails,
// or whose answer came too late, may have run all the same: the submission,
// answered as failed, is then undone in the background, its job, units
// hash, queued units and places in the caps deleted, so that no job runs
// that its client was told was refused, nor a units hash stays for ever;
// and the job is marked undone for a week (gs:jobs:<id>:undone): should a
// stalled Redis run the write after the undoing, the write (a script)
// writes nothing, and a job so written by an earlier version is deleted by
// its first unit begun.) A unit's stream entry is acknowledged and deleted when the
// unit is finished, skipped or its job fails. A starting worker deletes the
// consumers that own no entry and have been idle for a day (dead workers).
//
// # Units, heartbeats and reclaims
//
// A worker takes a unit with XAUTOCLAIM (units idle for longer than
// Options.ReclaimAfter: their worker died, or handed them back) and
// otherwise with XREADGROUP. While the unit runs it heartbeats every
// Options.Heartbeat: a script checks that the worker still owns the entry,
// resets its idle time (XCLAIM to itself, JUSTID), records the node count
// and returns the job's status; a canceled or finished job cancels the
// unit's context, and a lost entry (another worker reclaimed it) stops the
// run without acknowledging. A finished unit is written with HSETNX, so a
// unit finished twice keeps its first result; the worker then calls
// Kind.Combine with every result so far (the store brings back only those
// the process has not read: the script answers with their count when it is
// what the process expects, else with the units' indexes, and the process
// reads the results it lacks and keeps them, up to 64 MiB of the latest
// jobs') and, when it says done, a script
// finishes the job only if it is still queued or running, so exactly one
// worker finishes a job. Only then is the entry acknowledged (XACK, XDEL):
// a worker that dies between the write and the acknowledgement leaves the
// unit to be reclaimed, and its successor finds the result written and only
// combines. The heartbeat goes on while Combine runs, and cancels its
// context as it cancels a run's; a worker shutting down hands the unit back
// for another to combine.
//
// A store that was down, frozen or refusing writes (Redis out of memory
// under noeviction, read-only after a failover, stopped by a failed save:
// storeDown) saw no heartbeat meanwhile: when it is back every running
// unit looks idle. So a process whose call failed to reach the store, or
// was refused so, or that started a worker, within the last ReclaimAfter
// reclaims only units handed back (their idle time is a year), not those
// a live worker may hold: their workers renew the claims within a
// Heartbeat. (Reclaiming them ran each again and counted a delivery:
// three Redis restarts failed a job.) A unit finished during an outage
// (or a refusal) keeps trying to store its result, up to 10 minutes (a worker shutting
// down: a third of ReclaimAfter, 10 s by default).
//
// # The express slot
//
// With Options.Express each RunWorker adds a slot that runs only units of
// jobs not marked slow, each for at most Options.Express: a unit that
// outlasts it is handed back uncounted (as on shutdown) and its job is
// marked slow (the job hash's "slow" field; a "slow" line in the memory
// store's file). The slot reads only new units (XREADGROUP, never
// XAUTOCLAIM: handed-back units are for the other slots), and hands a
// slow job's unit back unrun (the stream cannot skip it; the memory store
// skips it). A small job so waits at most Options.Express (an express slot
// trying a new job's unit) even when a long job's units hold every other
// slot for an hour, at the cost of at most Options.Express of work once
// per slow job and express slot (each worker has one). Only an express
// slot marks a job slow: units that ran long on the other slots do not. A
// unit handed back waits for a slot that reclaims (with Redis, an idle
// slot looks every Options.Poll).
//
// # Shutdown and failures
//
// When a worker's context ends, each running unit sees its context
// canceled; a unit that returns an error then is handed back: XCLAIM with
// IDLE of a year makes it claimable by the next XAUTOCLAIM at once, and
// RETRYCOUNT keeps its delivery count, so a hand-back does not count as a
// failed delivery. A worker shutting down makes one try of each call a
// store that cannot be reached (storeDown) does not answer, where a live
// worker makes five: the unit is left pending, and reclaimed ReclaimAfter
// after the store is back either way (with Redis frozen, a shutdown took
// 25 s, five tries of Options.OpTimeout). A panicking Run (or Combine: the unit's result is kept,
// and the next delivery combines again) is recovered, logged with its
// stack, and the unit handed back for another delivery; at the
// Options.MaxDeliveries-th delivery the job fails with the panic's
// message. A unit delivered more than MaxDeliveries
// times (its workers kept dying) fails the job without running. An error
// returned by Run fails the job at once: the kinds are deterministic.
package jobs
