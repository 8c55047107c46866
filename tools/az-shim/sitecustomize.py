"""Import fixes that let Debian's azure-cli 2.45 talk to aksemu. Loaded by Python at start-up when this
folder is on PYTHONPATH (`aksemu az-env` puts it there). Nothing here changes what az sends on the wire.

1. Debian's python3-azure ships fewer API-version packages than azure-cli 2.45's `latest` profile names
   (azure.mgmt.network.v2022_01_01 and azure.mgmt.compute.v2022_11_01 are missing), so every
   `az network ...` and `az vm ...` command fails while loading its arguments, before any request.
   A missing version package of those SDKs is served by the installed version closest in date. The
   commands that send requests (vnet, subnet, ...) carry their own api-version, so requests are unchanged.
2. azure-cli 2.45's aks and role modules read `<operations>.config` and pass the old `custom_headers`
   keyword; Debian's azure-mgmt-authorization has `_config` and no such keyword. az then retries the
   subnet role assignment for about 110 seconds and gives up. The operations classes get a `config`
   alias and `create` drops the keyword, so the role assignment is sent as upstream az sends it.
Set AKSEMU_AZ_SHIM=off to load none of this.
"""
import functools
import importlib
import importlib.abc
import importlib.util
import os
import pkgutil
import re
import sys

_PATCHED_SDKS = ("azure.mgmt.network", "azure.mgmt.compute")
_VERSION = re.compile(r"^v(\d{4})_(\d{2})_(\d{2})(?:_preview)?$")


def _version_key(name):
    m = _VERSION.match(name)
    return int("".join(m.groups())) if m else None


def _installed_versions(sdk):
    spec = importlib.util.find_spec(sdk)
    if spec is None or not spec.submodule_search_locations:
        return []
    return [m.name for m in pkgutil.iter_modules(spec.submodule_search_locations) if _version_key(m.name) is not None]


class _Alias(importlib.abc.Loader):
    def __init__(self, real):
        self.real = real

    def create_module(self, spec):
        return importlib.import_module(self.real)

    def exec_module(self, module):
        pass


class _NearestVersion(importlib.abc.MetaPathFinder):
    """Answers only for a missing `<sdk>.vYYYY_MM_DD[...]` package of the SDKs above."""

    def __init__(self):
        self._installed = {}

    def find_spec(self, fullname, path, target=None):
        for sdk in _PATCHED_SDKS:
            if not fullname.startswith(sdk + ".v"):
                continue
            version, _, rest = fullname[len(sdk) + 1:].partition(".")
            wanted = _version_key(version)
            if wanted is None:
                return None
            if sdk not in self._installed:
                self._installed[sdk] = _installed_versions(sdk)
            installed = self._installed[sdk]
            if version in installed or not installed:
                return None
            nearest = min(installed, key=lambda v: abs(_version_key(v) - wanted))
            real = ".".join(p for p in (sdk, nearest, rest) if p)
            return importlib.util.spec_from_loader(fullname, _Alias(real))
        return None


class _AuthorizationConfig(importlib.abc.MetaPathFinder):
    """Patches azure.mgmt.authorization.v*.operations modules as they are imported."""

    def find_spec(self, fullname, path, target=None):
        if not (fullname.startswith("azure.mgmt.authorization.v") and fullname.endswith(".operations")):
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            for name, cls in list(vars(module).items()):
                if not (isinstance(cls, type) and name.endswith("Operations")):
                    continue
                if not hasattr(cls, "config"):
                    cls.config = property(lambda self: getattr(self, "_config", None))
                if name == "RoleAssignmentsOperations" and hasattr(cls, "create"):
                    cls.create = _without_custom_headers(cls.create)

        spec.loader.exec_module = exec_module
        return spec


def _without_custom_headers(create):
    @functools.wraps(create)
    def wrapper(self, *args, **kwargs):
        kwargs.pop("custom_headers", None)
        return create(self, *args, **kwargs)

    return wrapper


if os.environ.get("AKSEMU_AZ_SHIM", "on") != "off":
    sys.meta_path.insert(0, _NearestVersion())
    sys.meta_path.insert(0, _AuthorizationConfig())
