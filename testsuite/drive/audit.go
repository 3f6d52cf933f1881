package drive

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// StateSerial is the instance's terraform state serial as the pg backend stores it in db.
func StateSerial(pg *postgres.Server, db string, ref steps.Ref) (int, error) {
	schema := terraform.SchemaName(terraform.Workspace{Tenant: ref.Tenant, Name: ref.Name})
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

// Effects counts the lines "apply T/N" and "destroy T/N" that a test stack's provisioners
// append to path for every real create and destroy, so duplicates are counted in what
// terraform really did.
func Effects(path string, ref steps.Ref) (applies, destroys int, err error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		switch line {
		case "apply " + ref.String():
			applies++
		case "destroy " + ref.String():
			destroys++
		}
	}
	return applies, destroys, nil
}
