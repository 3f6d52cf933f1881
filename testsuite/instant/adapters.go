package instant

import (
	"context"
	"fmt"
	"maps"
	"sync"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/examples"
)

// New returns activities over instant adapters only: a forge whose main holds the example
// stack, terraform, a deployer and a secret store, all in this process's memory. The caller
// attaches the Temporal-backed clients (app.Attach) and registers them.
func New() (*activities.Activities, error) { return NewWith(nil) }

// NewWith is New with more files on the forge's first commit (FleetFiles), keyed by
// repo-relative path.
func NewWith(more map[string][]byte) (*activities.Activities, error) {
	files, err := examples.StackFiles("example")
	if err != nil {
		return nil, fmt.Errorf("example stack: %w", err)
	}
	seed := maps.Clone(more)
	if seed == nil {
		seed = map[string][]byte{}
	}
	for p, d := range files {
		seed["stacks/example/"+p] = d
	}
	return &activities.Activities{Forge: NewForge(seed), Terraform: NewTerraform(), Deployer: NewDeployer(),
		Secrets: NewSecrets()}, nil
}

// Secrets is an instant secret store: values are made up per instance and kept in memory.
type Secrets struct {
	mu   sync.Mutex
	vals map[string]map[string]string
	n    int
}

var _ activities.SecretStore = (*Secrets)(nil)

// NewSecrets returns an empty instant secret store.
func NewSecrets() *Secrets { return &Secrets{vals: map[string]map[string]string{}} }

func (s *Secrets) Ensure(_ context.Context, tenant, name string, names []string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := tenant + "/" + name
	if s.vals[k] == nil {
		s.vals[k] = map[string]string{}
	}
	var created []string
	for _, n := range names {
		if _, ok := s.vals[k][n]; !ok {
			s.n++
			s.vals[k][n] = fmt.Sprintf("instant-secret-%d", s.n)
			created = append(created, n)
		}
	}
	return created, nil
}

func (s *Secrets) Get(_ context.Context, tenant, name string) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for k, v := range s.vals[tenant+"/"+name] {
		out[k] = v
	}
	return out, nil
}

func (s *Secrets) Forget(_ context.Context, tenant, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.vals, tenant+"/"+name)
	return nil
}
