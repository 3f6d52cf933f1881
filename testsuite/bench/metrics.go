package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	sdkclient "go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/freeport"
	"github.com/slipway-dev/slipway/testsuite/instant"
)

// metricsScrapes is how many scrapes the row times back to back.
const metricsScrapes = 200

// metricsWindow is how long the row watches the worker count the fleet every second.
const metricsWindow = 20 * time.Second

// metricsRow parks n Deployed instances on a worker with slipway's telemetry on, then measures
// one /metrics scrape (bytes, series) and the worker's CPU for scrapes and for the fleet
// counts, against an idle worker without telemetry over the same window.
func (b *bench) metricsRow(ctx context.Context) error {
	n := b.o.metrics
	tq := fmt.Sprintf("bench-metrics-%d", n)
	port, err := freeport.Get()
	if err != nil {
		return err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	w, err := startWorkerFrom(mustExecutable(), b.dir, b.env.Address, b.env.KeyFile, tq, 0, "-telemetry", addr)
	if err != nil {
		return err
	}
	defer w.stop()
	if err := waitPoller(ctx, b.env.Client.Temporal, tq); err != nil {
		return err
	}
	refs := make([]contract.Ref, n)
	for i := range refs {
		refs[i] = contract.Ref{Tenant: tq, Name: fmt.Sprintf("i%05d", i)}
	}
	now := time.Now().UTC()
	if err := each(refs, 32, func(ref contract.Ref) error {
		_, err := b.env.Client.Temporal.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{
			ID: contract.InstanceWorkflowID(ref), TaskQueue: tq}, contract.InstanceWorkflowName,
			instant.Parked(ref, "observer/"+tq, now))
		return err
	}); err != nil {
		return err
	}
	if err := waitParked(ctx, b.env.Client.Temporal, tq, n); err != nil {
		return err
	}
	url := "http://" + addr + "/metrics"
	// The fleet gauge must show every parked instance before the row measures anything.
	deployed := fmt.Sprintf(`slipway_instances{state="Deployed"} %d`, n)
	var body []byte
	for deadline := time.Now().Add(time.Minute); ; {
		if body, err = scrapeOnce(url); err != nil {
			return err
		}
		if bytes.Contains(body, []byte(deployed)) {
			break
		}
		if time.Now().After(deadline) {
			return &rowFailedError{row: "metrics", reason: "the fleet gauge never showed " + deployed}
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Fleet counts: the worker's CPU over a window with no scrapes, less an idle worker's.
	cpu0, idle0 := w.cpu(), b.worker.cpu()
	time.Sleep(metricsWindow)
	refreshCPU := (w.cpu() - cpu0) - (b.worker.cpu() - idle0)
	perRefresh := refreshCPU / time.Duration(metricsWindow/time.Second)
	// Scrapes back to back; the window is short, so what the fleet counts cost in it is taken out.
	cpu0, start := w.cpu(), time.Now()
	for range metricsScrapes {
		if _, err := scrapeOnce(url); err != nil {
			return err
		}
	}
	took := time.Since(start)
	scrapeCPU := w.cpu() - cpu0 - time.Duration(float64(perRefresh)*took.Seconds())
	perScrape := scrapeCPU / metricsScrapes
	refreshStart := time.Now()
	if _, err := b.env.Client.Fleet(ctx); err != nil {
		return err
	}
	refreshWall := time.Since(refreshStart)
	series := 0
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			series++
		}
	}
	// At the defaults: a scrape every 15s and a fleet count every 30s.
	share := (ms(perScrape)/15000 + ms(perRefresh)/30000) * 100
	b.rep.add(row{Section: "metrics (telemetry on)", Name: fmt.Sprintf("%d parked instances", n),
		Figures: map[string]float64{"instances": float64(n), "scrapeBytes": float64(len(body)), "scrapeSeries": float64(series),
			"cpuMsPerScrape": ms(perScrape), "cpuMsPerFleetCount": ms(perRefresh), "fleetCountWallMs": ms(refreshWall),
			"cpuPercentAtDefaults": share},
		Text: fmt.Sprintf("scrape %.1f KiB (%d series), %.2f ms CPU; fleet count %.2f ms CPU (%.0f ms wall); %.3f%% of a core at 15s scrapes and 30s counts",
			float64(len(body))/1024, series, ms(perScrape), ms(perRefresh), ms(refreshWall), share),
		Note: fmt.Sprintf("%d scrapes in %.1f s; fleet counted every 1 s for %s", metricsScrapes, took.Seconds(), metricsWindow)})
	return nil
}

func scrapeOnce(url string) ([]byte, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

func mustExecutable() string {
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return self
}
