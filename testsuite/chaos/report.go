package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Report holds every phase's figures; a nil phase did not run.
type Report struct {
	Seed      int64
	Dir       string
	Baseline  Audit // a clean lifecycle
	Kills     []KillResult
	Faults    *FaultFigures
	Restart   *RestartFigures
	Conflicts *ConflictFigures
	Secrets   *SecretFigures
	Durations []string
	Total     time.Duration
}

// killTotals sums the kill-point lifecycles.
func (r *Report) killTotals() (fired, missed, completed, mrs, merges, applies, serial, lost, extra int) {
	for _, k := range r.Kills {
		if k.Fired {
			fired++
		}
		if k.Missed {
			missed++
		}
		if k.Completed {
			completed++
		}
		mrs += k.Audit.DupMRs()
		merges += k.Audit.DupMerges()
		applies += k.Audit.DupApplies(r.Baseline)
		serial += k.Audit.SerialJump(r.Baseline)
		lost += k.Audit.Lost
		extra += k.Audit.ExtraOps
	}
	return
}

// OffTarget lists every figure that is not at its target.
func (r *Report) OffTarget() []string {
	var bad []string
	check := func(ok bool, format string, args ...any) {
		if !ok {
			bad = append(bad, fmt.Sprintf(format, args...))
		}
	}
	if r.Kills != nil {
		n := len(r.Kills)
		fired, missed, completed, mrs, merges, applies, serial, lost, extra := r.killTotals()
		check(fired == n, "kill points fired %d/%d", fired, n)
		check(missed == 0, "mid-activity kills that missed: %d", missed)
		check(completed == n, "kill-point lifecycles completed %d/%d", completed, n)
		for _, k := range r.Kills {
			check(k.Completed, "%s: %s", k.Point, k.Err) // the figure alone does not say why
		}
		check(mrs+merges+applies+serial+extra == 0, "kill points: duplicate MRs %d, merges %d, applies/destroys %d, serial jumps %d, operations %d",
			mrs, merges, applies, serial, extra)
		check(lost == 0, "kill points: lost records %d", lost)
	}
	if f := r.Faults; f != nil {
		check(f.Converged == f.Lifecycles, "faults: converged %d/%d", f.Converged, f.Lifecycles)
		check(f.DupMRs+f.DupMerges+f.DupApplies+f.SerialJumps+f.ExtraOps == 0,
			"faults: duplicate MRs %d, merges %d, applies/destroys %d, serial jumps %d, operations %d",
			f.DupMRs, f.DupMerges, f.DupApplies, f.SerialJumps, f.ExtraOps)
		check(f.Lost == 0, "faults: lost records %d", f.Lost)
		check(f.Faults > 0, "faults: none were injected")
	}
	if f := r.Restart; f != nil {
		check(f.Completed == f.Lifecycles, "server restart: completed %d/%d", f.Completed, f.Lifecycles)
		check(f.Lost+f.ExtraOps == 0, "server restart: lost %d, extra operations %d", f.Lost, f.ExtraOps)
	}
	if f := r.Conflicts; f != nil {
		check(f.Interleaved == 0, "conflicts: interleaved %d", f.Interleaved)
		check(len(f.Unclear) == 0, "conflicts: unclear answers %q", f.Unclear)
		check(f.Unrecorded == 0, "conflicts: accepted but not on record %d", f.Unrecorded)
		check(f.Accepted >= 1 && f.Accepted+f.Rejected == f.Requests, "conflicts: accepted %d + rejected %d of %d", f.Accepted, f.Rejected, f.Requests)
	}
	if f := r.Secrets; f != nil {
		check(len(f.Hits) == 0, "secrets: %d hit(s): %s", len(f.Hits), strings.Join(f.Hits, "; "))
		check(f.Plaintext == 0, "secrets: %d payload(s) stored unencrypted", f.Plaintext)
		check(f.ControlDecoded > 0 && f.ControlRaw == 0, "secrets: control value found decoded in %d, as stored in %d histories",
			f.ControlDecoded, f.ControlRaw)
	}
	return bad
}

// Print writes the figures as tables.
func (r *Report) Print(out io.Writer) {
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	defer tw.Flush()
	if r.Kills != nil {
		fmt.Fprintf(tw, "\nKILL POINTS (worker SIGKILLed once at the point, restarted at once)\n")
		fmt.Fprintf(tw, "#\tpoint\tfired\trestarts\tcompleted\tMRs\tmerges\tapplies\tdestroys\tserial\tlost\ttook\n")
		for i, k := range r.Kills {
			fired := yes(k.Fired)
			if k.Missed {
				fired = "missed"
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", i+1, k.Point, fired, k.Restarts, yes(k.Completed),
				k.Audit.MRs, k.Audit.Merges, k.Audit.Applies, k.Audit.Destroys, k.Audit.Serial, k.Audit.Lost, k.Took.Round(100*time.Millisecond))
		}
		for i, k := range r.Kills {
			if k.Err != "" {
				fmt.Fprintf(tw, "#%d %s:\t%s\n", i+1, k.Point, k.Err)
			}
		}
		fired, _, completed, mrs, merges, applies, serial, lost, extra := r.killTotals()
		fmt.Fprintf(tw, "\nkill points\t%d\ttarget ≥ 20\n", len(r.Kills))
		fmt.Fprintf(tw, "fired\t%d\ttarget %d\n", fired, len(r.Kills))
		fmt.Fprintf(tw, "lifecycles completed\t%d/%d\ttarget 100%%\n", completed, len(r.Kills))
		fmt.Fprintf(tw, "duplicate MRs\t%d\ttarget 0 (%d per lifecycle expected)\n", mrs, configChanges)
		fmt.Fprintf(tw, "duplicate merges\t%d\ttarget 0\n", merges)
		fmt.Fprintf(tw, "duplicate applies+destroys (runs above %d+%d)\t%d\ttarget 0\n", r.Baseline.Applies, r.Baseline.Destroys, applies)
		fmt.Fprintf(tw, "state serial jumps (above %d)\t%d\ttarget 0\n", r.Baseline.Serial, serial)
		fmt.Fprintf(tw, "duplicate operations\t%d\ttarget 0\n", extra)
		fmt.Fprintf(tw, "lost records\t%d\ttarget 0\n", lost)
	}
	if f := r.Faults; f != nil {
		fmt.Fprintf(tw, "\nTRANSIENT FAULTS (forge, terraform and deployer calls failing before or after they act)\n")
		fmt.Fprintf(tw, "lifecycles\t%d\n", f.Lifecycles)
		fmt.Fprintf(tw, "faults injected\t%d\n", f.Faults)
		fmt.Fprintf(tw, "converged\t%d/%d\ttarget 100%%\n", f.Converged, f.Lifecycles)
		fmt.Fprintf(tw, "failed\t%d\ttarget 0\n", f.Failed)
		fmt.Fprintf(tw, "duplicate MRs / merges / applies+destroys / operations\t%d / %d / %d / %d\ttarget 0\n", f.DupMRs, f.DupMerges, f.DupApplies, f.ExtraOps)
		fmt.Fprintf(tw, "state serial jumps\t%d\ttarget 0\n", f.SerialJumps)
		fmt.Fprintf(tw, "lost records\t%d\ttarget 0\n", f.Lost)
		for _, s := range f.Failures {
			fmt.Fprintf(tw, "  failure: %s\n", s)
		}
	}
	if f := r.Restart; f != nil {
		fmt.Fprintf(tw, "\nSERVER RESTART (dev server stopped mid-lifecycle, restarted on the same database file)\n")
		fmt.Fprintf(tw, "lifecycles completed\t%d/%d\ttarget 100%%\n", f.Completed, f.Lifecycles)
		fmt.Fprintf(tw, "server down for\t%s\n", f.Down)
		fmt.Fprintf(tw, "lost records / extra operations\t%d / %d\ttarget 0\n", f.Lost, f.ExtraOps)
		for _, s := range f.Failures {
			fmt.Fprintf(tw, "  failure: %s\n", s)
		}
	}
	if f := r.Conflicts; f != nil {
		fmt.Fprintf(tw, "\nCONFLICTS (concurrent mixed requests on one instance; policy: reject while busy, never queue)\n")
		fmt.Fprintf(tw, "requests\t%d\n", f.Requests)
		fmt.Fprintf(tw, "accepted / rejected with a reason\t%d / %d\n", f.Accepted, f.Rejected-len(f.Unclear))
		fmt.Fprintf(tw, "ran in order\t%s\n", strings.Join(f.Order, " → "))
		fmt.Fprintf(tw, "interleaved\t%d\ttarget 0\n", f.Interleaved)
		fmt.Fprintf(tw, "accepted but not on record\t%d\ttarget 0\n", f.Unrecorded)
	}
	if f := r.Secrets; f != nil {
		fmt.Fprintf(tw, "\nSECRETS (every history as JSON + payload data, every worker log, the GitOps repo)\n")
		fmt.Fprintf(tw, "secrets searched\t%d\n", f.Secrets)
		fmt.Fprintf(tw, "histories / events / logs\t%d / %d / %d\n", f.Histories, f.Events, f.Logs)
		fmt.Fprintf(tw, "payloads encrypted / stored in the clear\t%d / %d\ttarget 0 in the clear\n", f.Encrypted, f.Plaintext)
		fmt.Fprintf(tw, "written by the server itself (ACTIVITY_ID_NOT_STARTED)\t%d\tnot slipway's: the server's note on a cancelled activity no worker started\n", f.ServerWritten)
		for _, at := range f.PlainAt {
			fmt.Fprintf(tw, "  in the clear: %s\n", at)
		}
		fmt.Fprintf(tw, "control %q found decoded / as stored\t%d / %d histories\ttarget >0 / 0\n", control, f.ControlDecoded, f.ControlRaw)
		fmt.Fprintf(tw, "secret hits\t%d\ttarget 0\n", len(f.Hits))
	}
	fmt.Fprintf(tw, "\ntime\t%s (%s)\n", r.Total, strings.Join(r.Durations, ", "))
	if bad := r.OffTarget(); len(bad) == 0 {
		fmt.Fprintf(tw, "result\tevery figure at target\n")
	} else {
		fmt.Fprintf(tw, "result\tOFF TARGET: %s\n", strings.Join(bad, "; "))
	}
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}
