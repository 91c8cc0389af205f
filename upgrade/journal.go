package upgrade

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/claimbridge/claimbridge/cluster"
)

// A Journal records the steps claimbridge has done in one change of one
// cluster's release. It is kept in a file, or in a ConfigMap of the
// cluster (key "journal").
type Journal struct {
	// Cluster is the UID of the cluster's namespace kube-system; To the
	// release changed to.
	Cluster, To string
	// Done is, by resource, the storage version hash under which every
	// object of it was rewritten; Counts how many objects were.
	Done   map[string]string
	Counts map[string]int
	// Saved is the SHA-256 of the file SavedTo, where the cluster's DRA
	// objects were saved.
	Saved, SavedTo string
	// Recreated is true once the save is re-created on the target.
	Recreated bool

	file            string
	c               *cluster.Cluster
	namespace, name string
	version         string // the ConfigMap's resourceVersion
}

// Open reads the journal of c's change to release to from file, or, when
// file is "", from the ConfigMap name in namespace; a new journal when
// there is none. A journal of another cluster or another release is
// refused.
func Open(ctx context.Context, c *cluster.Cluster, file, namespace, name, to string) (*Journal, error) {
	id, err := c.NamespaceUID(ctx, "kube-system")
	if err == nil && file == "" {
		_, err = c.NamespaceUID(ctx, namespace) // the journal's
	}
	if err != nil {
		return nil, err
	}
	j := &Journal{file: file, c: c, namespace: namespace, name: name}
	var data []byte
	where, remove := "ConfigMap "+namespace+"/"+name, fmt.Sprintf("kubectl -n %s delete configmap %s", namespace, name)
	if file != "" {
		where, remove = file, "rm "+file
		if data, err = os.ReadFile(file); errors.Is(err, os.ErrNotExist) {
			err = nil
		}
	} else {
		var cm string
		cm, j.version, err = c.ConfigMap(ctx, namespace, name, "journal")
		data = []byte(cm)
	}
	if err == nil && len(data) > 0 {
		err = json.Unmarshal(data, j)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the journal %s: %w", where, err)
	}
	switch {
	case len(data) == 0:
		j.Cluster, j.To, j.Done, j.Counts = id, to, map[string]string{}, map[string]int{}
	case j.Cluster != id:
		return nil, fmt.Errorf("the journal %s is of another cluster (kube-system %s, not %s): name another journal", where, j.Cluster, id)
	case j.To != to:
		return nil, fmt.Errorf("the journal %s is of the change to %s, not %s: finish that one; once it is verified, remove the journal (`%s`), or name another", where, j.To, to, remove)
	}
	return j, nil
}

// Save writes the journal: a file whole or not at all, a ConfigMap only
// if unchanged since it was read.
func (j *Journal) Save(ctx context.Context) error {
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	if j.file == "" {
		j.version, err = j.c.SaveConfigMap(ctx, j.namespace, j.name, "journal", string(data), j.version)
		return err
	}
	return writeFile(j.file, data)
}

// writeFile writes data to file whole, or not at all.
func writeFile(file string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err := cmp.Or(err, tmp.Sync(), tmp.Close()); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}
