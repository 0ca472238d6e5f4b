package reference

import (
	"fmt"
	"regexp"

	"gopkg.in/yaml.v3"

	"github.com/restgate/gateway/gateway/config"
)

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}`)

// envVars lists, by key path in Keys' form, the variables the shipped
// config reads each key from.
func envVars(shipped []byte) (map[string][]EnvVar, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(shipped, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", ShippedConfig, err)
	}
	out := map[string][]EnvVar{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				key := n.Content[i].Value
				if path != "" {
					key = path + "." + key
				}
				walk(n.Content[i+1], key)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i))
			}
		case yaml.ScalarNode:
			for _, m := range varRef.FindAllStringSubmatch(n.Value, -1) {
				k := config.NormalPath(path)
				out[k] = append(out[k], EnvVar{Path: path, Name: m[1]})
			}
		}
	}
	walk(&doc, "")
	return out, nil
}
