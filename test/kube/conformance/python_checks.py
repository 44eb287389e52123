# Conformance checks driven through the official Python client (python3-kubernetes).
# Prints one JSON object: {check name: [passed, detail]}. The kubeconfig path is argv[1].
import json
import sys
import time

from kubernetes import client, config, watch
from kubernetes.client.exceptions import ApiException

config.load_kube_config(sys.argv[1])
core = client.CoreV1Api()
apps = client.AppsV1Api()
ext = client.ApiextensionsV1Api()
custom = client.CustomObjectsApi()
coord = client.CoordinationV1Api()
results = {}


def check(name):
    def wrap(fn):
        try:
            detail = fn()
            results[name] = [True, detail if isinstance(detail, str) else ""]
        except Exception as e:  # report, never stop the run
            results[name] = [False, "%s: %s" % (type(e).__name__, e)]
        return fn
    return wrap


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def status_of(fn):
    try:
        fn()
    except ApiException as e:
        return e.status, json.loads(e.body) if e.body else {}
    return 200, {}


NS = "py-conformance"


@check("namespaces: bootstrap namespaces exist and a new one is Active")
def _():
    names = {n.metadata.name for n in core.list_namespace().items}
    expect({"default", "kube-system", "kube-public", "kube-node-lease"} <= names, names)
    ns = core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS)))
    expect(ns.status.phase == "Active", ns.status.phase)
    expect(ns.metadata.labels.get("kubernetes.io/metadata.name") == NS, ns.metadata.labels)


@check("create returns uid, creationTimestamp and a numeric resourceVersion")
def _():
    cm = core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="a"), data={"k": "v"}))
    expect(cm.metadata.uid and cm.metadata.creation_timestamp, cm.metadata)
    expect(cm.metadata.resource_version.isdigit(), cm.metadata.resource_version)


@check("duplicate create is 409 AlreadyExists; missing object is 404 NotFound")
def _():
    code, body = status_of(lambda: core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="a"))))
    expect(code == 409 and body.get("reason") == "AlreadyExists", (code, body))
    code, body = status_of(lambda: core.read_namespaced_config_map("nope", NS))
    expect(code == 404 and body.get("reason") == "NotFound", (code, body))
    expect(body.get("message") == 'configmaps "nope" not found', body.get("message"))


@check("an empty list is items: [] with a resourceVersion")
def _():
    lst = core.list_namespaced_secret(NS, label_selector="none=here")
    expect(lst.items == [] and lst.metadata.resource_version, lst)


@check("strategic merge patch from a dict merges data")
def _():
    cm = core.patch_namespaced_config_map("a", NS, {"data": {"k2": "v2"}})
    expect(cm.data == {"k": "v", "k2": "v2"}, cm.data)


@check("JSON patch from a list applies; a failed test op is 422")
def _():
    cm = core.patch_namespaced_config_map("a", NS, [{"op": "replace", "path": "/data/k", "value": "v3"}])
    expect(cm.data["k"] == "v3", cm.data)
    code, _ = status_of(lambda: core.patch_namespaced_config_map("a", NS, [{"op": "test", "path": "/data/k", "value": "zzz"}]))
    expect(code == 422, code)


@check("PUT with a stale resourceVersion is 409 Conflict")
def _():
    cm = core.read_namespaced_config_map("a", NS)
    stale = cm.metadata.resource_version
    core.patch_namespaced_config_map("a", NS, {"data": {"bump": "1"}})
    cm.metadata.resource_version = stale
    code, body = status_of(lambda: core.replace_namespaced_config_map("a", NS, cm))
    expect(code == 409 and body.get("reason") == "Conflict", (code, body))


@check("set-based label selectors filter; a bad selector is 400")
def _():
    for name, tier in (("l1", "web"), ("l2", "db"), ("l3", "cache")):
        core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels={"tier": tier})))
    names = sorted(c.metadata.name for c in core.list_namespaced_config_map(NS, label_selector="tier in (web,db)").items)
    expect(names == ["l1", "l2"], names)
    names = sorted(c.metadata.name for c in core.list_namespaced_config_map(NS, label_selector="tier,tier notin (web)").items)
    expect(names == ["l2", "l3"], names)
    code, _ = status_of(lambda: core.list_namespaced_config_map(NS, label_selector="tier in (web"))
    expect(code == 400, code)


@check("field selector metadata.name works; an unsupported field is 400")
def _():
    names = [c.metadata.name for c in core.list_namespaced_config_map(NS, field_selector="metadata.name=l2").items]
    expect(names == ["l2"], names)
    code, _ = status_of(lambda: core.list_namespaced_config_map(NS, field_selector="spec.foo=bar"))
    expect(code == 400, code)


@check("limit/continue pages return every item once")
def _():
    seen, token = [], None
    while True:
        page = core.list_namespaced_config_map(NS, limit=2, _continue=token) if token else core.list_namespaced_config_map(NS, limit=2)
        seen += [c.metadata.name for c in page.items]
        token = page.metadata._continue
        if not token:
            break
    all_names = [c.metadata.name for c in core.list_namespaced_config_map(NS).items]
    expect(sorted(seen) == sorted(all_names) and len(seen) == len(set(seen)), (seen, all_names))


@check("watch with no resourceVersion starts with ADDED for existing objects")
def _():
    w = watch.Watch()
    types = [e["type"] for e in w.stream(core.list_namespaced_config_map, NS, label_selector="tier", timeout_seconds=1)]
    expect(types == ["ADDED", "ADDED", "ADDED"], types)


@check("watch from a resourceVersion delivers later events in order")
def _():
    rv = core.list_namespaced_config_map(NS).metadata.resource_version
    core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="w1")))
    core.patch_namespaced_config_map("w1", NS, {"data": {"x": "1"}})
    core.delete_namespaced_config_map("w1", NS)
    w = watch.Watch()
    events = []
    for e in w.stream(core.list_namespaced_config_map, NS, resource_version=rv, timeout_seconds=1):
        events.append((e["type"], e["object"].metadata.name))
    expect(events == [("ADDED", "w1"), ("MODIFIED", "w1"), ("DELETED", "w1")], events)


@check("a too-old resourceVersion ends the watch with a 410")
def _():
    w = watch.Watch()
    try:
        for e in w.stream(core.list_namespaced_config_map, NS, resource_version="1", timeout_seconds=2):
            pass
    except ApiException as e:
        expect(e.status == 410, e.status)
        return "410"
    raise AssertionError("no 410")


@check("secret stringData is folded into base64 data")
def _():
    s = core.create_namespaced_secret(NS, client.V1Secret(metadata=client.V1ObjectMeta(name="s1"), string_data={"pw": "hunter2"}))
    expect(s.data == {"pw": "aHVudGVyMg=="} and not s.string_data, (s.data, s.string_data))
    expect(s.type == "Opaque", s.type)


@check("deployment defaults are applied (replicas, strategy, pod spec)")
def _():
    d = apps.create_namespaced_deployment(NS, client.V1Deployment(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1DeploymentSpec(
            selector=client.V1LabelSelector(match_labels={"app": "web"}),
            template=client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels={"app": "web"}),
                                              spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx")])))))
    expect(d.spec.replicas == 1 and d.spec.strategy.type == "RollingUpdate", d.spec)
    expect(d.spec.template.spec.restart_policy == "Always", d.spec.template.spec.restart_policy)
    expect(d.spec.template.spec.containers[0].image_pull_policy == "Always", d.spec.template.spec.containers[0].image_pull_policy)
    expect(d.metadata.generation == 1, d.metadata.generation)


@check("spec changes bump generation; status writes do not")
def _():
    d = apps.patch_namespaced_deployment("web", NS, {"spec": {"replicas": 3}})
    expect(d.metadata.generation == 2, d.metadata.generation)
    d = apps.patch_namespaced_deployment_status("web", NS, {"status": {"replicas": 3}})
    expect(d.metadata.generation == 2 and d.status.replicas == 3, (d.metadata.generation, d.status))


@check("scale subresource reads and writes replicas")
def _():
    sc = apps.read_namespaced_deployment_scale("web", NS)
    expect(sc.spec.replicas == 3 and sc.status.selector == "app=web", sc)
    apps.patch_namespaced_deployment_scale("web", NS, {"spec": {"replicas": 5}})
    expect(apps.read_namespaced_deployment("web", NS).spec.replicas == 5, "replicas")


@check("lease renewTime round-trips with microseconds; stale PUT is 409")
def _():
    from datetime import datetime, timezone
    now = datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=timezone.utc)
    lease = coord.create_namespaced_lease(NS, client.V1Lease(metadata=client.V1ObjectMeta(name="lock"),
                                                             spec=client.V1LeaseSpec(holder_identity="a", lease_duration_seconds=15, renew_time=now)))
    raw = coord.read_namespaced_lease("lock", NS, _preload_content=False).data.decode()
    expect('"renewTime":"2026-01-02T03:04:05.123456Z"' in raw, raw)
    stale = lease.metadata.resource_version
    coord.patch_namespaced_lease("lock", NS, {"spec": {"holderIdentity": "b"}})
    lease.metadata.resource_version = stale
    code, _ = status_of(lambda: coord.replace_namespaced_lease("lock", NS, lease))
    expect(code == 409, code)


@check("CRD becomes Established and its resources are served with defaults and 422 on schema errors")
def _():
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.py.example.com"},
        "spec": {"group": "py.example.com", "scope": "Namespaced",
                 "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
                 "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                               "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                                   "spec": {"type": "object", "properties": {"size": {"type": "integer", "default": 2}}},
                                   "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}}}}]}}
    ext.create_custom_resource_definition(crd)
    deadline = time.time() + 5
    while time.time() < deadline:
        c = ext.read_custom_resource_definition("gadgets.py.example.com")
        if any(x.type == "Established" and x.status == "True" for x in (c.status.conditions or [])):
            break
        time.sleep(0.05)
    else:
        raise AssertionError("not Established")
    g = custom.create_namespaced_custom_object("py.example.com", "v1", NS, "gadgets",
                                               {"apiVersion": "py.example.com/v1", "kind": "Gadget", "metadata": {"name": "g1"}, "spec": {"extra": 1}})
    expect(g["spec"] == {"size": 2}, g["spec"])
    code, body = status_of(lambda: custom.create_namespaced_custom_object("py.example.com", "v1", NS, "gadgets",
                                                                          {"apiVersion": "py.example.com/v1", "kind": "Gadget", "metadata": {"name": "g2"}, "spec": {"size": "big"}}))
    expect(code == 422 and body["details"]["causes"][0]["field"] == "spec.size", (code, body))


@check("custom resource status subresource keeps spec and status apart")
def _():
    g = custom.patch_namespaced_custom_object_status("py.example.com", "v1", NS, "gadgets", "g1",
                                                     {"status": {"ready": True}, "spec": {"size": 9}})
    expect(g["status"] == {"ready": True} and g["spec"]["size"] == 2, g)
    g = custom.patch_namespaced_custom_object("py.example.com", "v1", NS, "gadgets", "g1", {"spec": {"size": 4}, "status": {"ready": False}})
    expect(g["status"] == {"ready": True} and g["spec"]["size"] == 4 and g["metadata"]["generation"] == 2, g)


@check("ownerReferences: deleting the owner garbage-collects the dependent")
def _():
    owner = core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="owner")))
    ref = client.V1OwnerReference(api_version="v1", kind="ConfigMap", name="owner", uid=owner.metadata.uid)
    core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="dep", owner_references=[ref])))
    core.delete_namespaced_config_map("owner", NS)
    deadline = time.time() + 5
    while time.time() < deadline:
        if status_of(lambda: core.read_namespaced_config_map("dep", NS))[0] == 404:
            return
        time.sleep(0.05)
    raise AssertionError("dependent not collected")


@check("deleting default is 403; deleting a namespace removes its contents")
def _():
    code, _ = status_of(lambda: core.delete_namespace("default"))
    expect(code == 403, code)
    core.delete_namespace(NS)
    deadline = time.time() + 10
    while time.time() < deadline:
        if status_of(lambda: core.read_namespace(NS))[0] == 404:
            expect(status_of(lambda: core.read_namespaced_config_map("a", NS))[0] == 404, "content left")
            return
        time.sleep(0.1)
    raise AssertionError("namespace not removed")


print(json.dumps(results))
