package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"
)

// memStats is what the worker process reports of its Go memory when the bench asks (SIGUSR1):
// RSS alone cannot say whether the heap, the goroutine stacks or the runtime hold it.
type memStats struct {
	HeapInuseMiB  float64 `json:"heapInuseMiB"`  // spans holding objects, live or not yet swept
	HeapLiveMiB   float64 `json:"heapLiveMiB"`   // live objects after a forced GC
	StackInuseMiB float64 `json:"stackInuseMiB"` // goroutine stacks
	SysMiB        float64 `json:"sysMiB"`        // everything the runtime mapped
	Goroutines    int     `json:"goroutines"`
}

// serveMemStats writes <prefix>.json, a heap profile <prefix>.pprof and a goroutine profile
// <prefix>.goroutines.pprof each time the process gets SIGUSR1.
func serveMemStats(prefix string) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	go func() {
		for range ch {
			if err := writeMemStats(prefix); err != nil {
				fmt.Fprintln(os.Stderr, "bench worker: memory profile:", err)
			}
		}
	}()
}

func writeMemStats(prefix string) error {
	const mib = 1 << 20
	var m runtime.MemStats
	runtime.ReadMemStats(&m) // as the RSS the bench just read saw it, before the GC below
	s := memStats{HeapInuseMiB: float64(m.HeapInuse) / mib, StackInuseMiB: float64(m.StackInuse) / mib,
		SysMiB: float64(m.Sys) / mib, Goroutines: runtime.NumGoroutine()}
	runtime.GC() // the profile and the live figure then show what is reachable, not garbage
	runtime.ReadMemStats(&m)
	s.HeapLiveMiB = float64(m.HeapAlloc) / mib
	f, err := os.Create(prefix + ".pprof")
	if err != nil {
		return err
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	// Parked workflows are goroutines too: their blocking points tell what keeps each stack.
	if err := writeProfile("goroutine", prefix+".goroutines.pprof"); err != nil {
		return err
	}
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	// Written last and renamed into place: its presence says the profile is complete.
	tmp := prefix + ".json.tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, prefix+".json")
}

func writeProfile(name, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// memStats asks the worker for its Go memory figures and heap profile, which it writes under
// dir; it waits up to a minute for them.
func (p *workerProc) memStats(dir string) (memStats, string, error) {
	prefix := filepath.Join(dir, "mem-"+p.taskQueue)
	_ = os.Remove(prefix + ".json")
	if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		return memStats{}, "", err
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		data, err := os.ReadFile(prefix + ".json")
		if err != nil {
			continue
		}
		var s memStats
		return s, prefix + ".pprof", json.Unmarshal(data, &s)
	}
	return memStats{}, "", fmt.Errorf("worker %s wrote no memory profile within a minute", p.taskQueue)
}

// keepProfile moves a heap profile out of the run's temporary directory into the results
// directory, where `go tool pprof` can read it after the run.
func keepProfile(path, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	dst := filepath.Join(dir, time.Now().UTC().Format("20060102T150405Z")+"-"+filepath.Base(path))
	return dst, os.WriteFile(dst, data, 0o644)
}
