"""The backward pass: run the nodes reachable from the roots in dependency order.

1. Count, for every node reachable from the roots, how many edges lead into it (only nodes
   that lead to something wanted count: leaves to accumulate into, or the inputs of grad()).
2. Start with the roots' gradients in their nodes' input buffers. A node whose count reaches
   zero has received every gradient it will get: run it (latest-created first, as PyTorch),
   add what it returns into the buffers of its next functions (gradients that meet are summed)
   and count those edges down.
3. Without retain_graph each node frees its saved tensors once it ran.

backward() without inputs= or anomaly mode (a training step) needs no step 1: every reachable
node runs, and creation order alone gives the order (see _run_all).
"""

from __future__ import annotations

import heapq
import sys
from collections.abc import Sequence
from typing import Any

from .._errors import check
from .._th import ffi
from ..dtypes import float32, float64
from ..tensor import Tensor, wrap
from . import anomaly, grad_mode
from .graph import AccumulateGrad, Node, shape_of
from .record import cast_grad
from .variable import edge_of


_ONE_FILL = (float32, float64)   # dtypes whose fill takes a Python number


# dtype -> a 0-dim 1 that loss.backward()'s seed is cloned from (one C call, not two)
_ONES: dict = {}


def _seed(t: Any, g: Any, i: int) -> Any:
    if g is None and t._h.nDimension == 0 and t.dtype in _ONE_FILL:  # loss.backward()
        dt = t.dtype
        one = _ONES.get(dt)
        if one is None:
            one = _ONES[dt] = wrap(dt, dt.tensor.newWithSize(0, ffi.NULL))
            check(dt.tensor.fill(one._h, 1))
        return wrap(dt, dt.tensor.newClone(one._h))   # new: a hook may write into it
    from .._prims import creation as factories
    if g is None:
        if t.numel() != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        if not t.dtype.is_floating_point:
            raise RuntimeError("grad can be implicitly created only for real scalar outputs "
                               f"but got {t.dtype.name}")
        return factories.ones_like(t)
    if not isinstance(g, Tensor):
        raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
    if shape_of(g) != shape_of(t):
        raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} "
                           f"and output[{i}] has a shape of {t.shape!r}.")
    if g.dtype is not t.dtype:   # PyTorch casts a root's gradient to the root's dtype
        if g.dtype.is_complex != t.dtype.is_complex:
            raise RuntimeError("For complex Tensors, both grad_output and output are required "
                               f"to have the same dtype. Mismatch in dtype: grad_output[{i}] "
                               f"has a dtype of pyth.{g.dtype.name} and output[{i}] has a "
                               f"dtype of pyth.{t.dtype.name}.")
        g = cast_grad(g, t.dtype)
    return g


def _no_grad_message(i: int) -> str:
    return f"element {i} of tensors does not require grad and does not have a grad_fn"


def backward_plain(t: Any) -> None:
    """t.backward() with no arguments, the training step's call: run_backward's work for one
    root, without building its argument lists."""
    e = edge_of(t)
    if e is None:
        raise RuntimeError(_no_grad_message(0))
    seed = _seed(t, None, 0)
    if anomaly._anomaly[0]:
        run_backward([t], [seed], False, False)
    else:
        _run_all([(e, seed)], False, False)


def run_backward(tensors: Sequence[Any], grad_tensors: Sequence[Any], retain_graph: bool,
                 create_graph: bool, inputs: Sequence[Any] | None = None,
                 accumulate: bool = True, allow_unused: bool = True) -> list | None:
    """backward() (accumulate=True) and grad() (accumulate=False: returns the inputs' grads)."""
    roots = []
    for i, (t, g) in enumerate(zip(tensors, grad_tensors)):
        e = edge_of(t)
        if e is None:
            raise RuntimeError(_no_grad_message(i))
        roots.append((e, _seed(t, g, i)))

    if inputs is None and not anomaly._anomaly[0]:
        _run_all(roots, retain_graph, create_graph)
        return None

    # what is wanted: (node, nr) -> index into the inputs (captured or accumulated)
    targets: dict[tuple, int] = {}
    if inputs is not None:
        for i, x in enumerate(inputs):
            e = edge_of(x)
            if e is None:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            targets[(e[0], e[1])] = i

    # 1. which nodes matter, and how many edges lead into each
    deps: dict[Node, int] = {}
    needed: dict[Node, bool] = {}
    target_nodes = {n for n, _ in targets}
    order: list[Node] = []
    seen = set()
    stack = [e[0] for e, _ in roots]
    while stack:   # iterative DFS collecting a post-order
        n = stack[-1]
        if n in seen:
            stack.pop()
            if n not in needed:
                if inputs is None:
                    want = type(n) is AccumulateGrad or any(
                        needed.get(nf, False) for nf, _ in n._next if nf is not None)
                    want = want or bool(n._retained) or bool(n._tensor_hooks) or \
                        not n._next
                else:
                    want = n in target_nodes or any(
                        needed.get(nf, False) for nf, _ in n._next if nf is not None)
                needed[n] = want
                order.append(n)
            continue
        seen.add(n)
        for nf, _ in n._next:
            if nf is not None and nf not in seen:
                stack.append(nf)
    for n in order:
        if needed[n]:
            for nf, _ in n._next:
                if nf is not None and needed.get(nf):
                    deps[nf] = deps.get(nf, 0) + 1

    # 2. run
    buffers: dict[Node, list] = {}
    for (node, nr), g in roots:
        _add(buffers, node, nr, g)
    captured: list = [None] * (len(inputs) if inputs is not None else 0)
    ready: list = []
    queued = set()
    for (node, _), _g in roots:
        if deps.get(node, 0) == 0 and needed.get(node) and node not in queued:
            queued.add(node)
            heapq.heappush(ready, (-node._seq, id(node), node))
    prev = grad_mode.state.enabled
    grad_mode.state.enabled = create_graph
    try:
        while ready:
            _, _, node = heapq.heappop(ready)
            grads = buffers.pop(node, None) or []
            grads = _pre_hooks(node, grads)
            if inputs is not None:
                for nr, g in enumerate(grads):
                    i = targets.get((node, nr))
                    if i is not None:
                        captured[i] = g if captured[i] is None or g is None else captured[i] + g
            if type(node) is AccumulateGrad:
                if accumulate and (inputs is None or (node, 0) in targets) and grads and \
                        grads[0] is not None:
                    _accumulate(node.variable, grads[0], create_graph)
                    _post_accumulate_hooks(node.variable)
                outs = []
            elif not any(g is not None for g in grads):
                outs = [None] * len(node._next)
            else:
                if anomaly._anomaly[0]:
                    outs = anomaly.run_checked(node, grads)
                else:
                    outs = node.apply(grads)
                if node._hooks:
                    outs = _post_hooks(node, outs, grads)
            if not retain_graph:
                node.release()
            for (nf, nr), g in zip(node._next, outs):
                if nf is None or not needed.get(nf):
                    continue
                if g is not None:
                    _add(buffers, nf, nr, g)
                d = deps[nf] - 1
                deps[nf] = d
                if d == 0:
                    heapq.heappush(ready, (-nf._seq, id(nf), nf))
    finally:
        grad_mode.state.enabled = prev
    if inputs is None or accumulate:
        if inputs is not None:   # backward(inputs=...) on non-leaf inputs: into their .grad
            for x, g in zip(inputs, captured):
                m = x._ag
                if m.grad_fn is not None and g is not None:
                    _store_grad(x, g, create_graph)
        return None
    if not allow_unused:
        for i, g in enumerate(captured):
            if g is None:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not "
                                   "have been used in the graph. Set allow_unused=True if this "
                                   "is the desired behavior.")
    return captured


def _run_all(roots: list, retain_graph: bool, create_graph: bool) -> None:
    """backward() without inputs= or anomaly mode, the training step's case: every node
    reachable from the roots runs, so no walk decides which nodes matter or counts their
    inputs. A node is created after every node its edges lead to (its sequence number is
    larger), so the pending node with the largest number can receive nothing more: running
    pending nodes largest first is the order the dependency counts give (PyTorch's). The
    newest node a step made pending is held out of the heap (`held`): in a chain it is the next
    to run, with no heap push or pop."""
    buffers: dict[Node, list] = {}
    ready: list = []
    pop, push = heapq.heappop, heapq.heappush
    for (node, nr), g in roots:
        if node not in buffers:
            push(ready, (-node._seq, node))
        _add(buffers, node, nr, g)
    state = grad_mode.state
    prev = state.enabled
    state.enabled = create_graph
    held = None
    try:
        while ready or held is not None:
            if held is None:
                node = pop(ready)[1]
            elif ready and -ready[0][0] > held._seq:   # the heap holds a newer node
                node = pop(ready)[1]
                push(ready, (-held._seq, held))
                held = None
            else:
                node, held = held, None
            grads = buffers.pop(node)
            if type(node) is AccumulateGrad:
                t = node.variable
                if t._ag.hooks or node._tensor_hooks or node._retained or node._pre_hooks:
                    grads = _pre_hooks(node, grads)
                g = grads[0] if grads else None
                grads = None
                if g is not None:
                    # a first gradient may be kept as it is: see _owned (asked before the
                    # call, whose argument would count)
                    owned = _OWNED and t._ag.grad is None and _owned(g)
                    _accumulate(t, g, create_graph, owned)
                    if t._ag.post_hooks:
                        _post_accumulate_hooks(t)
                continue
            if node._tensor_hooks or node._retained or node._pre_hooks:
                grads = _pre_hooks(node, grads)
            op = getattr(node, "op", None)
            if op is not None and op.add_into is not None and not node._hooks and \
                    _added_into(buffers, node, op, grads):
                grads = ()   # its input's gradient buffer took the contribution in place
            for g in grads:
                if g is not None:
                    outs = node.apply(grads)
                    if node._hooks:
                        outs = _post_hooks(node, outs, grads)
                    break
            else:
                outs = ()
            if not retain_graph:
                node.release()
            nexts = node._next
            if len(outs) < len(nexts):
                outs = list(outs) + [None] * (len(nexts) - len(outs))
            seq = node._seq
            for (nf, nr), g in zip(nexts, outs):
                if nf is None:
                    continue
                if nf not in buffers:   # its first gradient (or None): it becomes pending
                    s = nf._seq
                    if s >= seq:
                        raise RuntimeError(f"autograd: {nf.name()} was created after "
                                           f"{node.name()}, which leads to it")
                    if held is None:
                        held = nf
                    elif s > held._seq:
                        push(ready, (-held._seq, held))
                        held = nf
                    else:
                        push(ready, (-s, nf))
                    if nr == 0 and nf.n_outputs == 1:
                        buffers[nf] = [g]
                        continue
                    buffers[nf] = [None] * max(nr + 1, nf.n_outputs)
                if g is not None:
                    _add(buffers, nf, nr, g)
            outs = g = grads = None   # the buffers alone hold the gradients (see _owned)
    finally:
        state.enabled = prev


def _add(buffers: dict, node: Node, nr: int, g: Any) -> None:
    buf = buffers.get(node)
    if buf is None:
        n = max(nr + 1, node.n_outputs)
        buf = buffers[node] = [None] * n
    elif nr >= len(buf):
        buf.extend([None] * (nr + 1 - len(buf)))
    old = buf[nr]
    if old is None:
        buf[nr] = g
        return
    # gradients meeting at one input are summed into the first when nobody else holds it
    # (PyTorch's InputBuffer does the same): its reference count proves it private, see _owned
    if not grad_mode.state.enabled and _OWNED and type(g) is type(old) and \
            old.dtype.tensor.isSameSizeAs(old._h, g._h) and _owned(old, 4):
        check(old.dtype.tensor.add(old._h, old._h, g._h))
        return
    buf[nr] = old + g


def _added_into(buffers: dict, node: Node, op: Any, grads: list) -> bool:
    """A node whose op can add its gradient into its input's gradient so far, in place: done
    (True) when that gradient is a tensor of the input's shape and dtype private to this pass
    (see _owned) and no graph of the backward is being built."""
    if grads is None or len(grads) != 1 or grad_mode.state.enabled:
        return False
    g = grads[0]
    nexts, inputs = node._next, node.inputs
    if g is None or len(nexts) != 1 or inputs is None or inputs[0] is None or \
            g._ag is not None or not _OWNED:
        return False
    nf, nr = nexts[0]
    buf = buffers.get(nf)
    if buf is None or nr >= len(buf) or node.args is None:
        return False
    old = buf[nr]
    shape, dt = inputs[0]
    if old is None or type(old) is not type(g) or old.dtype is not dt or g.dtype is not dt or \
            shape_of(old) != shape or not _owned(old, 4):
        return False
    return op.add_into(old, g, dict(node.args))


def _post_hooks(node: Node, outs: list, grads: list) -> list:
    """node.register_hook hooks: fn(grad_inputs, grad_outputs), each may replace the former
    (an input that wants no gradient is shown None, as PyTorch shows it)."""
    nexts = node._next
    outs = [g if i < len(outs) and nf is not None else None
            for i, ((nf, _), g) in enumerate(zip(nexts, list(outs) + [None] * len(nexts)))]
    for h in node._hooks:
        r = h(tuple(outs), tuple(grads))
        if r is not None:
            outs = _hook_values(h, outs, r)
    return outs


def _typename(x: Any) -> str:
    """x's type as PyTorch names it in these messages (a FloatTensor is a 'Tensor')."""
    name = type(x).__name__
    return "Tensor" if isinstance(x, Tensor) and name.endswith("Tensor") else name


def _hook_name(hook: Any) -> str:
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def _hook_value(hook: Any, value: Any, r: Any) -> Any:
    """r, what hook returned in place of the gradient value (not None), checked as PyTorch
    checks it: a tensor of value's dtype and shape, so that every gradient a hook gives still
    fits the tensor it is for."""
    if value is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(r, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{_typename(r)}'")
    if r.dtype is not value.dtype:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was "
                           f"{value.type()} got {r.type()})")
    if not value.dtype.tensor.isSameSizeAs(value._h, r._h):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
    return r


def _hook_values(hook: Any, values: list, r: Any) -> list:
    """What a node's hook returned in place of its tuple of gradients, checked: a tuple of
    as many, each None or a tensor as _hook_value accepts."""
    if not isinstance(r, tuple):
        raise TypeError(f"expected tuple, but hook returned '{_typename(r)}'")
    if len(r) != len(values):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of "
                           f"values (got {len(r)}, but expected {len(values)})")
    return [x if x is None else _hook_value(hook, v, x) for v, x in zip(values, r)]


def _pre_hooks(node: Node, grads: list) -> list:
    th = node._tensor_hooks
    if th:
        for nr, hooks in th.items():
            if nr < len(grads) and grads[nr] is not None:
                for h in list(hooks):
                    r = h(grads[nr])
                    if r is not None:
                        grads[nr] = _hook_value(h, grads[nr], r)
    if type(node) is AccumulateGrad:
        m = node.variable._ag
        if m.hooks and grads and grads[0] is not None:
            for h in list(m.hooks):
                r = h(grads[0])
                if r is not None:
                    grads[0] = _hook_value(h, grads[0], r)
    if node._retained:
        for nr, ref in node._retained.items():
            t = ref()
            if t is not None and nr < len(grads) and grads[nr] is not None:
                _store_grad(t, grads[nr], grad_mode.state.enabled)
    if node._pre_hooks:
        for h in node._pre_hooks:
            r = h(tuple(grads))
            if r is not None:
                grads = _hook_values(h, grads, r)
    return grads


def _post_accumulate_hooks(t: Any) -> None:
    """A leaf's register_post_accumulate_grad_hook hooks, called with the leaf once its .grad
    holds this backward's gradient (DistributedDataParallel reduces from here)."""
    hooks = t._ag.post_hooks
    if hooks:
        for h in list(hooks):
            r = h(t)
            if r is not None:
                _hook_value(h, t, r)
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def _store_grad(t: Any, g: Any, create_graph: bool) -> None:
    """A non-leaf's retained gradient (replaced each backward, as PyTorch 2 accumulates it)."""
    m = t._ag
    if m.grad is None:
        m.grad = g if create_graph else _detached(g, clone=True)
    else:
        m.grad = m.grad + g if create_graph else _detached(m.grad + g, clone=False)


def _detached(g: Any, clone: bool) -> Any:
    if clone or not g.is_contiguous():
        r = g.contiguous().clone() if g.is_contiguous() else g.contiguous()
    else:
        r = wrap(g.dtype, g.dtype.tensor.newWithTensor(g._h))
    r._ag = None
    return r


# Whether a gradient can be proven private by its reference count (CPython's semantics).
_OWNED = sys.implementation.name == "cpython"


def _owned(g: Any, refs: int = 3) -> bool:
    """Whether g is a fresh gradient nobody else can see: referenced only by _run_all's local
    (and getrefcount's argument), not in the graph, not a view, the only tensor on a storage it
    fills exactly, and not exported to numpy or DLPack. Such a gradient can become leaf.grad as
    it is (PyTorch steals it the same way) instead of being copied, or take the next gradient
    for the same input in place. refs: the references the caller's own variables account for."""
    if sys.getrefcount(g) > refs or g._ag is not None or getattr(g, "_vb", None) is not None:
        return False
    h = g._h
    if sys.getrefcount(h) > 3:   # its C handle is shared (a saved output's wrapper)
        return False
    st = h.storage
    return (st.refcount == 1 and st.exports == 0 and h.storageOffset == 0 and
            h.refcount == 1 and g.is_contiguous() and st.size == g.numel())


def _accumulate(t: Any, g: Any, create_graph: bool, owned: bool = False) -> None:
    """leaf.grad += g: the first gradient is stored (as a contiguous copy the leaf owns, or g
    itself when it is owned: see _owned)."""
    m = t._ag
    if m.grad is None:
        m.grad = g if create_graph or owned else _detached(g, clone=True)
    elif create_graph or m.grad._ag is not None:
        m.grad = m.grad + g
    else:
        acc = m.grad
        dt = acc.dtype
        h = acc._h
        if g.dtype is dt and dt.tensor.isSameSizeAs(h, g._h) and dt in _ONE_FILL:
            check(dt.tensor.add(h, h, g._h))   # the kernel, in place (same shape)
            h.storage.version += 1             # bump(acc), inlined
        else:
            with grad_mode.no_grad():
                acc.add_(g)

