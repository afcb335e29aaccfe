package archive

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// manifestName is the archive's record of what its copies hold, in DIR.
//
// It is a cache, not the truth: a copy it knows is skipped when its
// source has the size and hash it records (the source is read, the copy
// only looked at); a copy it does not know (a run killed before it saved
// the manifest) is read back and compared before it is skipped. So a
// lost or stale manifest costs a run a read of the archive, never a
// copy missed. Reading every copy back on every run instead would cost
// decompressing the whole archive each time.
const manifestName = "manifest.json"

// manifest maps a file's path under DIR/projects (its source's, without
// the .zst) to what its copy holds.
type manifest struct {
	Version int              `json:"version"`
	Files   map[string]entry `json:"files"`
}

type entry struct {
	Size   int64  `json:"size"`   // bytes of the source copied (a session being written: to its last whole line)
	Hash   string `json:"sha256"` // of those bytes
	Stored int64  `json:"stored"` // the copy's size on disk
}

func readManifest(path string) (manifest, error) {
	m := manifest{Version: 1, Files: map[string]entry{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Files == nil {
		// A damaged manifest only costs reading the copies back.
		return manifest{Version: 1, Files: map[string]entry{}}, nil
	}
	return m, nil
}

// writeManifest replaces the manifest as the copies are: a temporary
// file beside it, synced, renamed.
func writeManifest(path string, m manifest) (err error) {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), manifestName+tempMark+"*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("%s: %w", path, err)
		}
	}()
	if _, err := tmp.Write(b); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}
