// Package paste reads kubectl's human output back into the API objects it
// was printed from: kubectl describe of pods, Deployments, ReplicaSets,
// StatefulSets, DaemonSets, Jobs, CronJobs, Services, Endpoints,
// EndpointSlices, Ingresses, nodes, claims, quotas and namespaces,
// kubectl's generic describe of any other kind (custom resources: handed
// on as the object in YAML would be, Result.YAML), kubectl get tables of pods, Deployments, ReplicaSets and nodes, and
// kubectl get events, alone, several in a row, or mixed with YAML. Text
// someone pasted into an issue or a CI log is then walked as a capture is.
//
// Only what the text shows is built. kubectl leaves facts out when it
// prints (a condition's message, a waiting container's message, which
// container an event is about before 1.35), and a paste often leaves out
// more (the owner of a pod, the head of a table cut by tail): Parse fills
// what another line of the same paste shows, and names in Result.Notes the
// text that would show the rest, never guessing it.
//
// The formats are kubectl's (k8s.io/kubectl pkg/describe and the table
// printers of k8s.io/kubernetes pkg/printers/internalversion) from 1.0 to
// 1.37: describe's event columns of before 1.10 (FirstSeen, LastSeen,
// Count, From, SubobjectPath), kubectl get events' of before 1.14 (LAST
// SEEN, FIRST SEEN, COUNT, NAME, KIND, SUBOBJECT), the "Controllers:" and
// "Created By:" lines that came before "Controlled By:", and the
// fieldPath describe puts before an event's message since 1.35.
package paste
