package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

type groupRecord struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Offset    int64   `json:"offset"`
	Key       *string `json:"key"`
	Value     *string `json:"value"`
}

// groupLog is what group-consume answers: records, the assignment after each
// change, what this member committed, and the event log (DRIVERS.md). The
// rebalance callbacks run on kgo's goroutines, hence the lock.
type groupLog struct {
	mu          sync.Mutex
	incremental bool
	owned       map[[2]any]bool
	activeAt    time.Time        // the idle clock; zero before any assignment
	closing     bool             // callbacks while leaving the group are not logged
	Records     []groupRecord    `json:"records"`
	Assignments [][][2]any       `json:"assignments"`
	Committed   map[string]int64 `json:"committed"`
	Events      [][]any          `json:"events"`
}

func sortedPairs(set map[[2]any]bool) [][2]any {
	out := make([][2]any, 0, len(set))
	for tp := range set {
		out = append(out, tp)
	}
	sort.Slice(out, func(i, j int) bool {
		ti, tj := out[i][0].(string), out[j][0].(string)
		return ti < tj || (ti == tj && out[i][1].(int32) < out[j][1].(int32))
	})
	return out
}

func (l *groupLog) logAssignment() {
	if l.closing {
		return
	}
	now := sortedPairs(l.owned)
	l.Assignments = append(l.Assignments, now)
	l.Events = append(l.Events, []any{"assign", now})
	l.activeAt = time.Now()
}

// assigned: kgo calls OnPartitionsAssigned after every rebalance, with what was
// added (cooperative) or everything (eager, after revoking everything).
func (l *groupLog) assigned(m map[string][]int32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for t, ps := range m {
		for _, p := range ps {
			l.owned[[2]any{t, p}] = true
		}
	}
	l.logAssignment()
}

func (l *groupLog) revoked(m map[string][]int32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for t, ps := range m {
		for _, p := range ps {
			delete(l.owned, [2]any{t, p})
			n++
		}
	}
	if l.incremental && n > 0 {
		l.logAssignment()
	}
}

func (l *groupLog) lost(m map[string][]int32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	gone := map[[2]any]bool{}
	for t, ps := range m {
		for _, p := range ps {
			delete(l.owned, [2]any{t, p})
			gone[[2]any{t, p}] = true
		}
	}
	if !l.closing {
		l.Events = append(l.Events, []any{"lost", sortedPairs(gone)})
	}
}

// balancers maps DRIVERS.md assignor names to kgo balancers. Under the
// consumer protocol kgo asks the broker for "range" with RangeBalancer and
// "uniform" with a sticky one.
func balancers(protocol string, assignor *string) ([]kgo.GroupBalancer, bool, error) {
	if assignor == nil {
		return nil, true, nil // kgo's default: cooperative-sticky
	}
	switch {
	case *assignor == "range":
		return []kgo.GroupBalancer{kgo.RangeBalancer()}, protocol == "consumer", nil
	case *assignor == "roundrobin" && protocol == "classic":
		return []kgo.GroupBalancer{kgo.RoundRobinBalancer()}, false, nil
	case *assignor == "sticky" && protocol == "classic":
		return []kgo.GroupBalancer{kgo.StickyBalancer()}, false, nil
	case *assignor == "cooperative-sticky" && protocol == "classic", *assignor == "uniform" && protocol == "consumer":
		return []kgo.GroupBalancer{kgo.CooperativeStickyBalancer()}, true, nil
	}
	return nil, false, fmt.Errorf("franz-go has no %s assignor for the %s protocol", *assignor, protocol)
}

// groupConsume: a kgo group consumer with BlockRebalanceOnPoll, so rebalance
// callbacks run only between a poll and the next one (after its commit), and
// the event log is in the order the member saw things.
func groupConsume(e *env, a args) (any, error) {
	var topic, group, commit, from, protocol, stopFile string
	var topics []string
	var assignor, instanceID *string
	maxRecords, maxPoll := 1<<31-1, 500
	timeoutMs, idleMs, processMs := int64(60000), int64(3000), int64(0)
	commit, from, protocol = "sync", "earliest", "classic"
	for name, out := range map[string]any{"topic": &topic, "topics": &topics, "group": &group, "commit": &commit,
		"from": &from, "protocol": &protocol, "stop_file": &stopFile, "assignor": &assignor, "instance_id": &instanceID,
		"max_records": &maxRecords, "max_poll_records": &maxPoll, "timeout_ms": &timeoutMs, "idle_ms": &idleMs,
		"process_ms": &processMs} {
		if err := a.field(name, out); err != nil {
			return nil, err
		}
	}
	if len(topics) == 0 {
		topics = []string{topic}
	}
	if commit != "sync" && commit != "auto" && commit != "none" {
		return nil, fmt.Errorf("bad commit %q", commit)
	}
	if protocol != "classic" && protocol != "consumer" {
		return nil, fmt.Errorf("bad protocol %q", protocol)
	}
	bals, incremental, err := balancers(protocol, assignor)
	if err != nil {
		return unsupported{err.Error()}, nil
	}
	log := &groupLog{incremental: incremental, owned: map[[2]any]bool{}, Records: []groupRecord{},
		Assignments: [][][2]any{}, Committed: map[string]int64{}, Events: [][]any{}}
	reset := kgo.NewOffset().AtStart()
	if from == "latest" {
		reset = kgo.NewOffset().AtEnd()
	} else if from != "earliest" {
		return nil, fmt.Errorf("bad from %q", from)
	}
	var cl *kgo.Client
	opts := []kgo.Opt{kgo.ConsumerGroup(group), kgo.ConsumeTopics(topics...), kgo.ConsumeResetOffset(reset),
		kgo.BlockRebalanceOnPoll(), kgo.FetchMaxWait(500 * time.Millisecond),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { log.assigned(m) }),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { log.lost(m) }),
		kgo.OnPartitionsRevoked(func(ctx context.Context, c *kgo.Client, m map[string][]int32) {
			if commit == "auto" { // what the default OnPartitionsRevoked would have done
				if err := c.CommitUncommittedOffsets(ctx); err != nil {
					fmt.Fprintf(os.Stderr, "commit on revoke: %v\n", err)
				}
			}
			log.revoked(m)
		})}
	if commit != "auto" {
		opts = append(opts, kgo.DisableAutoCommit())
	}
	if protocol == "classic" {
		opts = append(opts, kgo.HeartbeatInterval(time.Second)) // members notice a rebalance quickly
	} else {
		opts = append(opts, kgo.ServerSideBalancer())
	}
	if bals != nil {
		opts = append(opts, kgo.Balancers(bals...))
	}
	if instanceID != nil {
		opts = append(opts, kgo.InstanceID(*instanceID))
	}
	if cl, err = e.client(opts...); err != nil {
		return nil, err
	}
	closed := false
	closeClient := func() {
		if !closed {
			closed = true
			log.mu.Lock()
			log.closing = true
			log.mu.Unlock()
			cl.CloseAllowingRebalance() // leaves the group (a static member stays)
		}
	}
	defer closeClient()

	// The command's own deadline: timeout_ms, not the driver's 60 s default.
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(timeoutMs)*time.Millisecond)
	defer cancel()
	stop := func() bool {
		log.mu.Lock()
		defer log.mu.Unlock()
		if len(log.Records) >= maxRecords || ctx.Err() != nil {
			return true
		}
		if !log.activeAt.IsZero() && time.Since(log.activeAt) >= time.Duration(idleMs)*time.Millisecond {
			return true
		}
		if stopFile != "" {
			if _, err := os.Stat(stopFile); err == nil {
				return true
			}
		}
		return false
	}
	for !stop() {
		pollCtx, pollCancel := context.WithTimeout(ctx, 200*time.Millisecond)
		want := maxPoll
		if left := maxRecords - len(log.Records); left < want {
			want = left
		}
		fetches := cl.PollRecords(pollCtx, want)
		pollCancel()
		for _, fe := range fetches.Errors() {
			if !errors.Is(fe.Err, context.DeadlineExceeded) && !errors.Is(fe.Err, context.Canceled) {
				fmt.Fprintf(os.Stderr, "fetch %s/%d: %v\n", fe.Topic, fe.Partition, fe.Err)
			}
		}
		recs := fetches.Records()
		if len(recs) > 0 {
			processed(log, recs, time.Duration(processMs)*time.Millisecond)
			if commit == "sync" {
				commitSync(ctx, cl, log, recs)
			}
		}
		cl.AllowRebalance()
	}
	if commit == "auto" {
		if err := cl.CommitUncommittedOffsets(context.Background()); err != nil {
			fmt.Fprintf(os.Stderr, "final commit: %v\n", err)
		}
	}
	closeClient()
	return log, nil
}

func processed(log *groupLog, recs []*kgo.Record, work time.Duration) {
	log.mu.Lock()
	for _, r := range recs {
		log.Records = append(log.Records, groupRecord{r.Topic, r.Partition, r.Offset, toB64(r.Key), toB64(r.Value)})
	}
	log.Events = append(log.Events, []any{"poll", len(recs)})
	log.activeAt = time.Now()
	log.mu.Unlock()
	time.Sleep(work)
}

func commitSync(ctx context.Context, cl *kgo.Client, log *groupLog, recs []*kgo.Record) {
	next := map[string]int64{}
	for _, r := range recs {
		key := fmt.Sprintf("%s:%d", r.Topic, r.Partition)
		if r.Offset+1 > next[key] {
			next[key] = r.Offset + 1
		}
	}
	err := cl.CommitRecords(ctx, recs...)
	log.mu.Lock()
	defer log.mu.Unlock()
	var name any
	if err != nil {
		if n := kafkaName(err); n != "" {
			name = n
		} else {
			name = err.Error() // refused by the client itself
		}
	} else {
		for k, v := range next {
			log.Committed[k] = v
		}
	}
	log.Events = append(log.Events, []any{"commit", next, name})
}
