#!/usr/bin/env python3
# Dumps the managedClusters/agentPools models of the old Microsoft.ContainerService api-versions from an installed
# azure-mgmt-containerservice (the multi-api Python package az ships with: one vNNNN_NN_NN folder per api-version,
# autorest-generated from the spec of that version) as autorest model mappers, the shape
# tools/aks-sdk-mappers.mjs reads from an @azure/arm-containerservice package. tools/gen-aks-api-versions.mjs takes
# the output with --python-models, for the versions whose spec files are not at hand (docs/aks-rules.md §1.4).
#
# Run (any Python 3 that can import the package, e.g. the one az uses):
#   python3 tools/aks-python-models.py [--before 2022-06-01] > /tmp/aks-python-models.json
#
# What a Python model carries: wire names (_attribute_map keys, "properties.x" flattening as autorest writes it),
# readonly/required and constraints (_validation), integer vs float, the spec's defaults (the constructor's keyword
# defaults), enum names (the keyword annotations) and values (the version's enums module). What it loses: formats
# other than date-time/duration/date/byte, x-ms-mutability, x-ms-secret, prose defaults, whether an enum is
# modelAsString (every Python enum is a str enum: read as modelAsString), and the operations.
import argparse
import enum
import importlib
import inspect
import json
import pkgutil
import re
import sys

ROOTS = ['AgentPool', 'ContainerServiceNetworkProfile', 'ManagedCluster', 'ManagedClusterAgentPoolProfile']
PRIMITIVES = {
    'str': {'name': 'String'},
    'int': {'name': 'Number'},
    'float': {'name': 'Number'},
    'bool': {'name': 'Boolean'},
    'iso-8601': {'name': 'DateTime'},
    'rfc-1123': {'name': 'DateTimeRfc1123'},
    'duration': {'name': 'TimeSpan'},
    'date': {'name': 'Date'},
    'bytearray': {'name': 'ByteArray'},
    'object': {'name': 'Object'},
}
CONSTRAINTS = {
    'minimum': 'InclusiveMinimum',
    'maximum': 'InclusiveMaximum',
    'min_length': 'MinLength',
    'max_length': 'MaxLength',
    'min_items': 'MinItems',
    'max_items': 'MaxItems',
    'unique': 'UniqueItems',
    'multiple': 'MultipleOf',
}


def api_version(folder):
    m = re.fullmatch(r'v(\d{4})_(\d{2})_(\d{2})(_preview)?', folder)
    return m and f'{m[1]}-{m[2]}-{m[3]}' + ('-preview' if m[4] else '')


def mapper_type(text):
    if text in PRIMITIVES:
        return dict(PRIMITIVES[text])
    if text.startswith('[') and text.endswith(']'):
        return {'name': 'Sequence', 'element': {'type': mapper_type(text[1:-1])}}
    if text.startswith('{') and text.endswith('}'):
        return {'name': 'Dictionary', 'value': {'type': mapper_type(text[1:-1])}}
    return {'name': 'Composite', 'className': text}


def enum_name(annotation):
    m = re.search(r'_models\.(\w+)', str(annotation))
    return m[1] if m else None


def dump_version(package, folder):
    models = importlib.import_module(f'{package}.{folder}.models')
    enums = {n: c for n, c in vars(models).items() if inspect.isclass(c) and issubclass(c, enum.Enum)}
    mappers, known, typings = {}, {}, {}
    for name, cls in vars(models).items():
        if not inspect.isclass(cls) or not hasattr(cls, '_attribute_map') or issubclass(cls, enum.Enum):
            continue
        params = inspect.signature(cls.__init__).parameters
        validation = getattr(cls, '_validation', {})
        props, types = {}, {}
        for client, attr in cls._attribute_map.items():
            if attr['key'] == '':  # additional_properties
                continue
            v = validation.get(client, {})
            prop = {'serializedName': attr['key'], 'type': mapper_type(attr['type'])}
            if v.get('readonly'):
                prop['readOnly'] = True
            if v.get('required'):
                prop['required'] = True
            if attr['type'] == 'int':
                prop['integer'] = True
            constraints = {CONSTRAINTS[k]: val for k, val in v.items() if k in CONSTRAINTS}
            if 'pattern' in v:
                constraints['Pattern'] = {'source': v['pattern']}
            if constraints:
                prop['constraints'] = constraints
            param = params.get(client)
            if param is not None and param.default not in (inspect.Parameter.empty, None):
                prop['defaultValue'] = param.default
            enum_of = enum_name(param.annotation) if param is not None else None
            if enum_of in enums:
                known[f'Known{enum_of}'] = {m.name: m.value for m in enums[enum_of]}
                types[client] = {'text': enum_of, 'readOnly': False, 'required': False}
            props[client] = prop
        mappers[name] = {'type': {'name': 'Composite', 'className': name, 'modelProperties': props}}
        typings[name] = {'extends': [], 'props': types}
    return {'mappers': mappers, 'known': known, 'typings': typings}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--package', default='azure.mgmt.containerservice')
    parser.add_argument('--before', default='2022-06-01', help='api-versions older than this (the data holds the rest)')
    parser.add_argument('--previews', action='store_true', help='previews too (ARM has retired those before 2022-06-01)')
    args = parser.parse_args()
    pkg = importlib.import_module(args.package)
    dist = importlib.import_module(f'{args.package}._version').VERSION
    out = {'package': f"{args.package.replace('.', '-')}@{dist}", 'versions': {}}
    for info in pkgutil.iter_modules(pkg.__path__):
        version = api_version(info.name)
        if not version or version >= args.before or (version.endswith('-preview') and not args.previews):
            continue
        dumped = dump_version(args.package, info.name)
        if 'ManagedCluster' not in dumped['mappers']:
            continue  # container services / OpenShift only
        out['versions'][version] = dumped
    json.dump(out, sys.stdout, indent=1, sort_keys=True, default=str)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
