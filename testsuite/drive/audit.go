package drive

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/names"
	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// StateSerial is the instance's terraform state serial as the pg backend stores it in db. The
// instance was provisioned by this code, so its schema is Derive's unless ref carries its names.
func StateSerial(pg *postgres.Server, db string, ref contract.Ref) (int, error) {
	schema := names.Derive(ref.Tenant, ref.Name).Schema
	if ref.Names != nil {
		schema = ref.Names.Schema
	}
	out, err := pg.Psql(db, fmt.Sprintf(`SELECT data FROM %s.states WHERE name = 'default'`, schema))
	if err != nil || out == "" {
		return 0, err
	}
	var st struct {
		Serial int `json:"serial"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		return 0, fmt.Errorf("state of %s: %w", ref, err)
	}
	return st.Serial, nil
}

// Effect is one line a test stack's provisioner appends for every real create ("apply T/N")
// and destroy ("destroy T/N"), optionally followed by " pid=PID" of the terraform that ran it.
type Effect struct {
	Kind string // apply or destroy
	PID  int    // 0 when the line does not say
}

// EffectsOf reads ref's lines from the effects file at path, so duplicates are counted in
// what terraform really did.
func EffectsOf(path string, ref contract.Ref) ([]Effect, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var out []Effect
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || fields[1] != ref.String() || (fields[0] != "apply" && fields[0] != "destroy") {
			continue
		}
		e := Effect{Kind: fields[0]}
		if len(fields) > 2 {
			if pid, ok := strings.CutPrefix(fields[2], "pid="); ok {
				e.PID, _ = strconv.Atoi(pid)
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// Effects counts ref's applies and destroys in the effects file at path.
func Effects(path string, ref contract.Ref) (applies, destroys int, err error) {
	effects, err := EffectsOf(path, ref)
	for _, e := range effects {
		if e.Kind == "apply" {
			applies++
		} else {
			destroys++
		}
	}
	return applies, destroys, err
}
