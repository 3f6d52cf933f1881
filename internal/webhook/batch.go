package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
)

// BatchRecorder records several deliveries in one Temporal round trip (internal/client.Client
// does: one workflow start whose workflow then files each delivery under its own ID).
type BatchRecorder interface {
	RecordDeliveries(ctx context.Context, ds []contract.Delivery) error
}

// Batcher is a group commit: deliveries arriving within the window share one round trip, so
// a flood costs Temporal one write per batch and each answer waits for one write, not a queue.
type Batcher struct {
	rec      BatchRecorder
	window   time.Duration
	max      int
	maxBytes int
	timeout  time.Duration
	in       chan pending
}

type pending struct {
	d    contract.Delivery
	size int
	done chan error
}

// NewBatcher batches for rec: up to max deliveries or maxBytes of them, waiting at most
// window after the first; each batch's round trip is bounded by timeout. It runs until ctx ends.
func NewBatcher(ctx context.Context, rec BatchRecorder, window time.Duration, max, maxBytes int, timeout time.Duration) *Batcher {
	b := &Batcher{rec: rec, window: window, max: max, maxBytes: maxBytes, timeout: timeout, in: make(chan pending)}
	go b.loop(ctx)
	return b
}

// RecordDelivery waits for the batch holding d to be recorded. A duplicate is found by the
// record itself, after this answer, so it is never reported here.
func (b *Batcher) RecordDelivery(ctx context.Context, d contract.Delivery) (bool, error) {
	raw, _ := json.Marshal(d)
	if max := b.maxBytes / 4; len(raw) > max {
		// It would fail every batch it joined (a batch may run one delivery over maxBytes):
		// refuse it before it joins one.
		return false, &TooLargeError{Size: len(raw), Max: max}
	}
	p := pending{d: d, size: len(raw), done: make(chan error, 1)}
	select {
	case b.in <- p:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	select {
	case err := <-p.done:
		return false, err
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

func (b *Batcher) loop(ctx context.Context) {
	for {
		var batch []pending
		select {
		case p := <-b.in:
			batch = append(batch, p)
		case <-ctx.Done():
			return
		}
		size := batch[0].size
		timer := time.NewTimer(b.window)
	collect:
		for len(batch) < b.max && size < b.maxBytes {
			select {
			case p := <-b.in:
				batch = append(batch, p)
				size += p.size
			case <-timer.C:
				break collect
			}
		}
		timer.Stop()
		go b.flush(batch)
	}
}

// flush records one batch and tells every waiter; it runs beside the next batch's collection.
func (b *Batcher) flush(batch []pending) {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	ds := make([]contract.Delivery, len(batch))
	for i, p := range batch {
		ds[i] = p.d
	}
	err := b.rec.RecordDeliveries(ctx, ds)
	if err == nil || len(batch) == 1 || ctx.Err() != nil {
		for _, p := range batch {
			p.done <- err
		}
		return
	}
	// One delivery Temporal refuses must not fail the others: each is tried alone in the time left.
	var wg sync.WaitGroup
	for _, p := range batch {
		wg.Add(1)
		go func(p pending) {
			defer wg.Done()
			p.done <- b.rec.RecordDeliveries(ctx, []contract.Delivery{p.d})
		}(p)
	}
	wg.Wait()
}

// TooLargeError: a delivery's record would be over the batch's byte budget (HTTP 413).
type TooLargeError struct{ Size, Max int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the delivery's record would be %d bytes, over %d", e.Size, e.Max)
}
