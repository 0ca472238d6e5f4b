package apptest

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// The container image's build of the gateway (the go build line of
// deploy/Dockerfile, with CGO_ENABLED=0): no embedded sandbox, no gRPC trace
// exporter, no symbols. Tests of the gateway's own cost build that binary,
// the one users deploy; a test keeps these the same as the Dockerfile's.
const (
	ImageTags    = "nosandbox,grpcnotrace"
	ImageLDFlags = "-s -w"
)

// BuildAsImage compiles cmd/gateway to bin as the image does (with the
// profile cmd/gateway/default.pgo, go build's default), writing the
// compiler's output to log; flags are added to go build's (-pgo=off
// builds without the profile). The binary has no sandbox: its configs
// must name real upstream URLs.
func BuildAsImage(ctx context.Context, bin string, log io.Writer, flags ...string) error {
	args := append([]string{"build", "-tags", ImageTags, "-trimpath", "-ldflags", ImageLDFlags}, flags...)
	cmd := exec.CommandContext(ctx, "go", append(args, "-o", bin, "github.com/restgate/gateway/cmd/gateway")...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build ./cmd/gateway: %w", err)
	}
	return nil
}
