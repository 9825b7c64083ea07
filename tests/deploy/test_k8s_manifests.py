"""deploy/k8s/: every manifest passes kubernetes-validate (strict, offline schemas); the KEDA
resources, which it has no schema for, against the fields KEDA requires; and the wiring holds:
secrets by reference only, graders without the database, the sandbox's security context, the
ScaledObject on the very Redis list huey uses for the grading queue."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from grading_contract.queues import GRADING_QUEUE

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
MANIFESTS = sorted(K8S.glob("*.yaml"))


def docs() -> dict[tuple[str, str], dict[str, Any]]:
    found = {}
    for path in MANIFESTS:
        for doc in yaml.safe_load_all(path.read_text()):
            found[(doc["kind"], doc["metadata"]["name"])] = doc
    return found


@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda p: p.name)
def test_manifest_passes_kubernetes_validate(manifest: Path) -> None:
    tool = Path(sys.executable).with_name("kubernetes-validate")
    result = subprocess.run([str(tool), "--strict", str(manifest)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    if manifest.name != "scaledobject.yaml":  # only KEDA's kinds lack a schema
        assert "WARN" not in result.stdout + result.stderr, result.stdout + result.stderr


# The part of KEDA's CRDs (keda.sh/v1alpha1) these manifests use, as KEDA's schema states it.
KEDA = {
    "ScaledObject": {
        "type": "object", "required": ["spec"],
        "properties": {"spec": {
            "type": "object", "required": ["scaleTargetRef", "triggers"],
            "additionalProperties": False,
            "properties": {
                "scaleTargetRef": {"type": "object", "required": ["name"],
                                   "additionalProperties": False,
                                   "properties": {k: {"type": "string"}
                                                  for k in ("name", "kind", "apiVersion")}},
                "minReplicaCount": {"type": "integer", "minimum": 0},
                "maxReplicaCount": {"type": "integer", "minimum": 1},
                "pollingInterval": {"type": "integer"}, "cooldownPeriod": {"type": "integer"},
                "triggers": {"type": "array", "minItems": 1, "items": {
                    "type": "object", "required": ["type", "metadata"],
                    "properties": {
                        "type": {"type": "string"},
                        "metadata": {"type": "object",
                                     "additionalProperties": {"type": "string"}},
                        "authenticationRef": {"type": "object", "required": ["name"]},
                    }}},
            }}},
    },
    "TriggerAuthentication": {
        "type": "object", "required": ["spec"],
        "properties": {"spec": {"type": "object", "properties": {"secretTargetRef": {
            "type": "array", "items": {
                "type": "object", "required": ["parameter", "name", "key"],
                "additionalProperties": False,
                "properties": {k: {"type": "string"} for k in ("parameter", "name", "key")}}}}}},
    },
}


def test_keda_scales_the_graders_on_the_grading_queue() -> None:
    from huey import RedisHuey

    found = docs()
    scaled = found[("ScaledObject", "pathways-grader")]
    auth = found[("TriggerAuthentication", "pathways-redis")]
    jsonschema.validate(scaled, KEDA["ScaledObject"])
    jsonschema.validate(auth, KEDA["TriggerAuthentication"])
    target = scaled["spec"]["scaleTargetRef"]
    assert (target.get("kind", "Deployment"), target["name"]) in found  # KEDA's default kind
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["type"] == "redis"
    queue_key = RedisHuey(GRADING_QUEUE, url="redis://127.0.0.1:1/0").storage.queue_key
    assert trigger["metadata"]["listName"] == queue_key
    assert trigger["authenticationRef"]["name"] == "pathways-redis"
    assert {r["parameter"] for r in auth["spec"]["secretTargetRef"]} == {"address", "password"}


def _env(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in container.get("env", [])}


def test_secrets_come_by_reference_and_graders_get_only_the_queue() -> None:
    found = docs()
    assert not [k for k in found if k[0] == "Secret"], "no Secret is shipped: operators make them"
    for path in MANIFESTS:
        text = path.read_text()
        assert "CHANGE-ME" not in text and "password:" not in text.lower().replace(
            "parameter: password", ""), path.name
    secret_names = {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "PATHWAYS_GRADING_KEY"}
    for kind, name in found:
        if kind not in ("Deployment", "Job"):
            continue
        spec = found[(kind, name)]["spec"]["template"]["spec"]
        for container in spec["containers"]:
            env = _env(container)
            for key in secret_names & set(env):
                assert "secretKeyRef" in env[key]["valueFrom"], (name, key)
            if name == "pathways-grader":
                assert set(env) & secret_names == {"REDIS_URL", "PATHWAYS_GRADING_KEY"}
                assert all(e["valueFrom"]["secretKeyRef"]["name"] == "pathways-grader"
                           for k, e in env.items() if k in secret_names)
                assert "envFrom" not in container


def test_grader_runs_the_sandbox_unprivileged() -> None:
    pod = docs()[("StatefulSet", "pathways-grader")]["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == 10001
    (grader,) = pod["containers"]
    ctx = grader["securityContext"]
    assert ctx["allowPrivilegeEscalation"] is False and "privileged" not in ctx
    assert ctx["capabilities"] == {"drop": ["ALL"]}
    assert ctx["seccompProfile"] == {"type": "Localhost",
                                     "localhostProfile": "profiles/pathways-grader.json"}
    assert ctx["procMount"] == "Unmasked"
    env = _env(grader)
    assert env["PATHWAYS_GRADER_CGROUP_ROOT"]["value"] == "/pathways-graders/$(POD_NAME)"
    assert "PATHWAYS_GRADER_ALLOW_NO_CGROUP" not in env
    # The one root step: making the pod's cgroup subtree, with CAP_CHOWN only.
    delegate = next(c for c in pod["initContainers"] if c["name"] == "delegate-cgroup")
    assert delegate["securityContext"]["capabilities"] == {"drop": ["ALL"], "add": ["CHOWN"]}
    assert "privileged" not in delegate["securityContext"]
    for container in [*pod["initContainers"], grader]:
        assert container["image"].startswith("REGISTRY/pathways-")


def test_each_grader_keeps_its_seed_pool_on_a_volume_of_its_own() -> None:
    """The pool lives under the grader image's PATHWAYS_VAR_DIR; a volume per pod that
    outlives it, so graders KEDA starts again in a burst come back with their pools."""
    grader = docs()[("StatefulSet", "pathways-grader")]["spec"]
    dockerfile = (ROOT / "deploy/docker/grader-cpu.Dockerfile").read_text()
    var_dir = dockerfile.split("PATHWAYS_VAR_DIR=", 1)[1].split()[0]
    (container,) = grader["template"]["spec"]["containers"]
    mounted = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    assert var_dir in mounted
    claims = {c["metadata"]["name"]: c["spec"] for c in grader["volumeClaimTemplates"]}
    assert claims[mounted[var_dir]]["accessModes"] == ["ReadWriteOnce"]
    assert mounted[var_dir] not in {v["name"] for v in grader["template"]["spec"]["volumes"]}
    assert grader["persistentVolumeClaimRetentionPolicy"] == {"whenScaled": "Retain",
                                                              "whenDeleted": "Retain"}
    assert grader["podManagementPolicy"] == "Parallel"


def test_migration_job_and_consumer_command() -> None:
    found = docs()
    job = found[("Job", "pathways-migrate")]["spec"]["template"]["spec"]["containers"][0]
    assert job["command"] == ["pathways", "db", "upgrade"]
    consumer = found[("Deployment", "pathways-consumer")]["spec"]["template"]["spec"]
    assert consumer["containers"][0]["command"] == ["pathways", "consumer"]
    web = found[("Service", "pathways-web")]["spec"]
    assert web["ports"][0]["targetPort"] == "http"
