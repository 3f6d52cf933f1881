package production

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/proc"
	"github.com/slipway-dev/slipway/internal/names"
)

// timeTF puts the prod stack on the real hashicorp/time, installed on every worker from the
// filesystem mirror: each change of replicas replaces a time_sleep (an apply that takes a few
// seconds, for the kills to land in), and time_static is created once per lifecycle. Its
// provisioner leaves a "born" line naming the terraform that created it, so a re-creation is
// seen, and told apart from one whose terraform died with its host before saving the state.
const timeTF = `# The real provider hashicorp/time, from the workers' mirror (SLIPWAY_PROVIDER_MIRROR).
terraform {
  required_providers {
    time = {
      source  = "hashicorp/time"
      version = "~> 0.14"
    }
  }
}

resource "time_sleep" "rollout" {
  create_duration = "3s"
  triggers        = { replicas = "{{ .Params.replicas }}" }
}

resource "time_static" "born" {
  provisioner "local-exec" {
    command = "echo \"born {{ .Tenant }}/{{ .Name }} pid=$PPID\" >> \"$${CHAOS_EFFECTS:-/dev/null}\""
  }
}
`

// borns are the pids of the terraform processes that created ref's time_static, from the
// effects log.
func borns(path string, ref contract.Ref) ([]int, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var pids []int
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "born" && f[1] == ref.String() {
			pid, _ := strconv.Atoi(strings.TrimPrefix(f[2], "pid="))
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// stateBorn is ref's time_static creation time as the pg backend's state holds it now.
func (w *world) stateBorn(ref contract.Ref) (string, error) {
	out, err := w.pg.Psql("slipway", fmt.Sprintf(`SELECT data FROM %s.states WHERE name = 'default'`, names.Derive(ref.Tenant, ref.Name).Schema))
	if err != nil || out == "" {
		return "", err
	}
	var st struct {
		Resources []struct {
			Type      string
			Instances []struct{ Attributes map[string]any }
		}
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		return "", fmt.Errorf("state of %s: %w", ref, err)
	}
	for _, r := range st.Resources {
		if r.Type == "time_static" && len(r.Instances) == 1 {
			s, _ := r.Instances[0].Attributes["rfc3339"].(string)
			return s, nil
		}
	}
	return "", fmt.Errorf("state of %s: no time_static", ref)
}

// inFlight says what root's process tree runs at this moment: a terraform or tofu apply or
// destroy, and the provider.
func inFlight(root int) (applying, provider bool) {
	for _, pid := range proc.Descendants(root) {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
		switch base := filepath.Base(args[0]); {
		case strings.HasPrefix(base, "terraform-provider-time"):
			provider = true
		case base == "terraform" || base == "tofu":
			for _, a := range args[1:] {
				if a == "apply" || a == "destroy" {
					applying = true
				}
			}
		}
	}
	return applying, provider
}
