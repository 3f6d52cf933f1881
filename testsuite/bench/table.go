package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// row is one line of the table: what was measured, its figures, and a note on how to read it.
type row struct {
	Section string             `json:"section"`
	Name    string             `json:"name"`
	Figures map[string]float64 `json:"figures"`
	Text    string             `json:"text"`
	Note    string             `json:"note,omitempty"`
}

type report struct {
	Header string `json:"header"`
	Rows   []row  `json:"rows"`
}

// add prints r at once, so a long run shows its rows as they come, and keeps it for the JSON.
func (rep *report) add(r row) {
	if len(rep.Rows) == 0 || rep.Rows[len(rep.Rows)-1].Section != r.Section {
		fmt.Printf("\n%s\n", strings.ToUpper(r.Section))
	}
	fmt.Printf("  %-40s %s\n", r.Name, r.Text)
	if r.Note != "" {
		fmt.Printf("  %-40s   (%s)\n", "", r.Note)
	}
	rep.Rows = append(rep.Rows, r)
}

func (rep *report) find(section, name string) (row, bool) {
	for _, r := range rep.Rows {
		if r.Section == section && r.Name == name {
			return r, true
		}
	}
	return row{}, false
}

// save writes the raw figures as bench/results/bench-<time>.json and returns the path.
func (rep *report) save(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "bench-"+time.Now().UTC().Format("20060102T150405Z")+".json")
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, append(data, '\n'), 0o644)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
