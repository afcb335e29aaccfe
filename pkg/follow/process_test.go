package follow

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestProcessEnded proves the channel of a real child process (cat) is
// not closed while it runs and is closed once it has ended (its input
// closed, it exits); a process ended and reaped is ended at once.
func TestProcessEnded(t *testing.T) {
	cat := exec.Command("cat")
	in, err := cat.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, cat.Start())
	ended := ProcessEnded(context.Background(), cat.Process.Pid)
	select {
	case <-ended:
		t.Fatal("ended while it runs")
	default:
	}
	require.NoError(t, in.Close())
	require.NoError(t, cat.Wait())
	for _, c := range []<-chan struct{}{ended, ProcessEnded(context.Background(), cat.Process.Pid)} {
		select {
		case <-c:
		case <-time.After(waitLimit):
			t.Fatal("the end of the process was not seen")
		}
	}
}
