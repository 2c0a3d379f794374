package component

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

var (
	testLayout = state.Layout{Dir: "/s"}
	testSpec   = state.Spec{Name: "lab", Ports: state.Ports{EtcdClient: 1, EtcdPeer: 2, APIServer: 3, ControllerManager: 4, Scheduler: 5}}
)

func TestAPIServerArgs(t *testing.T) {
	want := []string{
		"--advertise-address=127.0.0.1",
		"--bind-address=127.0.0.1",
		"--secure-port=3",
		"--tls-cert-file=/s/pki/apiserver.crt",
		"--tls-private-key-file=/s/pki/apiserver.key",
		"--client-ca-file=/s/pki/ca.crt",
		"--etcd-servers=https://127.0.0.1:1",
		"--etcd-cafile=/s/pki/ca.crt",
		"--etcd-certfile=/s/pki/apiserver-etcd-client.crt",
		"--etcd-keyfile=/s/pki/apiserver-etcd-client.key",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=/s/pki/sa.pub",
		"--service-account-signing-key-file=/s/pki/sa.key",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--authorization-mode=Node,RBAC",
		"--anonymous-auth=false",
		"--enable-admission-plugins=NodeRestriction",
		"--allow-privileged=true",
		"--endpoint-reconciler-type=none",
		"--requestheader-client-ca-file=/s/pki/front-proxy-ca.crt",
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=/s/pki/front-proxy-client.crt",
		"--proxy-client-key-file=/s/pki/front-proxy-client.key",
		"--cert-dir=/s/pki",
		"--profiling=false",
		"--audit-policy-file=/s/audit-policy.yaml",
		"--audit-log-path=/s/logs/audit.log",
		"--audit-log-format=json",
		"--audit-log-maxsize=100",
		"--audit-log-maxbackup=1",
	}
	if diff := cmp.Diff(want, apiServerArgs(testLayout, testSpec)); diff != "" {
		t.Errorf("apiServerArgs (-want +got):\n%s", diff)
	}
}

func TestControllerManagerArgs(t *testing.T) {
	want := []string{
		"--kubeconfig=/s/kubeconfigs/kube-controller-manager.conf",
		"--authentication-kubeconfig=/s/kubeconfigs/kube-controller-manager.conf",
		"--authorization-kubeconfig=/s/kubeconfigs/kube-controller-manager.conf",
		"--bind-address=127.0.0.1",
		"--secure-port=4",
		"--root-ca-file=/s/pki/ca.crt",
		"--use-service-account-credentials=true",
		"--controllers=clusterrole-aggregation-controller,cronjob-controller,daemonset-controller,deployment-controller,endpointslice-controller,garbage-collector-controller,horizontal-pod-autoscaler-controller,job-controller,namespace-controller,node-lifecycle-controller,persistentvolume-binder-controller,persistentvolume-protection-controller,persistentvolumeclaim-protection-controller,pod-garbage-collector-controller,replicaset-controller,resourcequota-controller,root-ca-certificate-publisher-controller,serviceaccount-controller,statefulset-controller,taint-eviction-controller",
		"--cluster-name=lab",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--kube-api-qps=200",
		"--kube-api-burst=400",
		"--leader-elect=false",
		"--profiling=false",
	}
	if diff := cmp.Diff(want, controllerManagerArgs(testLayout, testSpec)); diff != "" {
		t.Errorf("controllerManagerArgs (-want +got):\n%s", diff)
	}
}

func TestSchedulerArgs(t *testing.T) {
	want := []string{
		"--config=/s/kubeconfigs/kube-scheduler-config.yaml",
		"--authentication-kubeconfig=/s/kubeconfigs/kube-scheduler.conf",
		"--authorization-kubeconfig=/s/kubeconfigs/kube-scheduler.conf",
		"--bind-address=127.0.0.1",
		"--secure-port=5",
		"--profiling=false",
	}
	if diff := cmp.Diff(want, schedulerArgs(testLayout, testSpec)); diff != "" {
		t.Errorf("schedulerArgs (-want +got):\n%s", diff)
	}
}
