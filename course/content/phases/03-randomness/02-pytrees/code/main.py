# Pytrees: the nested containers JAX accepts wherever it accepts an array. Parameters, gradients
# and optimizer states are pytrees; jax.tree.map applies a function to every leaf, over one tree
# or several with the same structure, and flatten/unflatten turn a tree into a list and back.
# region step-1
from dataclasses import dataclass, field
from typing import NamedTuple

import jax
import jax.numpy as jnp


class Dense(NamedTuple):
    w: jax.Array
    b: jax.Array


params = {"hidden": Dense(jnp.ones((2, 3)), jnp.zeros(3)),
          "out": [jnp.full((3, 1), 0.5), jnp.zeros(1)],
          "scale": (jnp.array(2.0),)}
leaves = jax.tree.leaves(params)
print("leaves:", len(leaves), [x.shape for x in leaves])
print("structure:", jax.tree.structure(params))
assert len(leaves) == 5  # dict keys are visited in sorted order: hidden, out, scale
sizes = jax.tree.map(lambda x: x.size, params)
print("sizes, same structure:", sizes, "| parameters:", sum(jax.tree.leaves(sizes)))
# endregion

# region step-2
grads = jax.tree.map(jnp.ones_like, params)
stepped = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)  # two trees, leaf by leaf
print("one step over two trees:", stepped["hidden"].b, "| type kept:", type(stepped["hidden"]).__name__)
flat, treedef = jax.tree.flatten(params)
rebuilt = jax.tree.unflatten(treedef, [2.0 * x for x in flat])
print("flatten -> 5 arrays and a treedef; unflatten doubles:", rebuilt["scale"])
assert jax.tree.structure(rebuilt) == treedef
try:
    jax.tree.map(lambda p, g: p - g, params, {"hidden": grads["hidden"], "out": grads["out"]})
    raise AssertionError("mismatched trees should fail")
except ValueError as err:
    print("trees of different structure:", type(err).__name__)
# endregion

# region step-3
state = {"step": jnp.array(0), "momentum": None, "extra": [], "w": jnp.ones(2)}
print("None and [] are nodes without leaves:", len(jax.tree.leaves(state)),
      jax.tree.structure(state))
assert jax.tree.map(lambda x: x + 1, state)["momentum"] is None  # kept, never passed to f


@jax.tree_util.register_dataclass
@dataclass
class Layer:
    w: jax.Array
    b: jax.Array
    name: str = field(default="dense", metadata=dict(static=True))  # part of the structure


layer = Layer(jnp.ones(2), jnp.zeros(()))
print("a registered dataclass:", jax.tree.structure(layer), "| leaves:", len(jax.tree.leaves(layer)))
doubled = jax.jit(lambda layer: jax.tree.map(lambda x: 2 * x, layer))(layer)
assert isinstance(doubled, Layer) and doubled.name == "dense"
# endregion

# region step-4
config = {"w": jnp.ones(3), "shape": (3, 1)}  # a tuple of ints is a container of two leaves
print("leaves of a config with a shape tuple:", jax.tree.leaves(config))
assert len(jax.tree.leaves(config)) == 3
is_shape = jax.tree.map(lambda x: x, config, is_leaf=lambda x: isinstance(x, tuple))
print("with is_leaf, the tuple is one leaf:", is_shape["shape"])
paths = [jax.tree_util.keystr(path) for path, _ in jax.tree_util.tree_leaves_with_path(params)]
print("leaf paths:", paths)


def build_tree(a, b, c):
    """The exercises' parameters: a tree of three arrays (the grader builds other trees)."""
    return {"dense": Dense(a, b), "extra": [c, None], "empty": ()}


example = build_tree(jnp.ones((2, 3)), jnp.arange(3.0), jnp.array(-2.0))
print("the exercises' tree:", jax.tree.structure(example))
# endregion
print("PASS: randomness-02")
