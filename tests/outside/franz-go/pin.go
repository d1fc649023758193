// Package franzgo only pins franz-go's version: tests/outside/franz-go/run.sh runs the
// integration tests that ship in franz-go's own module (`go test
// github.com/twmb/franz-go/pkg/kgo`) from this module, so go.mod and go.sum say exactly
// which franz-go is tested. Nothing of franz-go is copied into this repository.
package franzgo

import _ "github.com/twmb/franz-go/pkg/kgo"
