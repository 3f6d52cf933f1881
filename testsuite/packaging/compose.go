package packaging

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

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

var goEnvLiteral = regexp.MustCompile(`"((?:SLIPWAY|TEMPORAL|OTEL)_[A-Z0-9_]+)"`)

// EnvNamesInCode are the SLIPWAY_/TEMPORAL_/OTEL_ names written as string literals in the
// repository's non-test Go code and in the modules' sources it names (envconfig).
func EnvNamesInCode(extraDirs ...string) (map[string]bool, error) {
	names := map[string]bool{}
	scan := func(root string, skipTests bool) error {
		return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if n := d.Name(); n == ".git" || n == "node_modules" || n == "testdata" || n == "testsuite" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || (skipTests && strings.HasSuffix(p, "_test.go")) {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range goEnvLiteral.FindAllSubmatch(src, -1) {
				names[string(m[1])] = true
			}
			return nil
		})
	}
	if err := scan(Root(), true); err != nil {
		return nil, err
	}
	for _, d := range extraDirs {
		if err := scan(d, true); err != nil {
			return nil, err
		}
	}
	return names, nil
}
