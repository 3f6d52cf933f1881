package packaging

import (
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// Compose is docker-compose.yml, anchors and merge keys resolved.
type Compose struct {
	Services map[string]Service
	Networks map[string]any
	Secrets  map[string]struct{ File string }
}

// Service is the part of a compose service the topology checks read.
type Service struct {
	Image           string
	Entrypoint      []string
	Environment     map[string]string
	DependsOn       map[string]struct{ Condition string } `yaml:"depends_on"`
	Healthcheck     struct{ Test []string }
	StopGracePeriod string `yaml:"stop_grace_period"`
	Profiles        []string
	Volumes         []string
	Ports           []string
	Networks        yaml.Node
}

// LoadCompose parses the repository's docker-compose.yml.
func LoadCompose() (*Compose, error) {
	data, err := os.ReadFile(filepath.Join(Root(), "docker-compose.yml"))
	if err != nil {
		return nil, err
	}
	var c Compose
	if err := yaml.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// IPv4 is the fixed address the service has on network, "" when none.
func (s Service) IPv4(network string) string {
	var m map[string]struct {
		IPv4 string `yaml:"ipv4_address"`
	}
	if s.Networks.Kind != yaml.MappingNode || s.Networks.Decode(&m) != nil {
		return ""
	}
	return m[network].IPv4
}
