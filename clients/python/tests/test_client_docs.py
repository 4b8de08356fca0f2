"""Every public name of the package has a docstring (the package's own contract)."""

from __future__ import annotations

import inspect

import docstore


def public_members(cls):
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(member, (property, staticmethod, classmethod)) or inspect.isfunction(member):
            yield name, member


def test_every_public_name_has_a_docstring():
    missing = []
    assert docstore.__doc__
    for name in docstore.__all__:
        value = getattr(docstore, name)
        if isinstance(value, (int, str)):
            continue
        if not inspect.getdoc(value):
            missing.append(name)
        if inspect.isclass(value):
            for member_name, member in public_members(value):
                target = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
                if not (target.__doc__ or "").strip():
                    missing.append(f"{name}.{member_name}")
    assert missing == []
