// Bicep → ARM JSON. Declarations become the template's sections; expressions become ARM expression
// strings ("[…]") the way the Bicep compiler writes them: operators as functions (add, equals, if,
// coalesce …), interpolation as format(), parameters()/variables() for names, symbolic resource
// references as resourceId() / reference(), implicit dependsOn from those references, for-loops as
// copy (resources, modules, variables, properties, outputs), if as condition, lambdas as lambda() with
// lambdaVariables(), spread as shallowMerge()/flatten(), `.?` as tryGet().
//
// Modules are compiled from their files (relative to the file naming them) into nested
// Microsoft.Resources/deployments with inner expression scope; compile-time imports bring the
// exported types, variables and functions of another file into this template (as Bicep does: under their
// names, with what they use under `_N.` names). A file using user-defined types, functions, imports,
// nullable or structured type syntax, or a module without a name is emitted in languageVersion 2.0
// (symbolic resource names, `definitions`), as Bicep's EmitterSettings decides; otherwise the classic form.
import { relative } from 'node:path';
import { LIMITS } from '../limits.js';
import type {
  Decorator,
  Expr,
  FuncDecl,
  ImportDecl,
  MetadataDecl,
  ModuleDecl,
  OutputDecl,
  ParamDecl,
  Property,
  ResourceDecl,
  Statement,
  TypeDecl,
  TypeExpr,
  VarDecl,
} from './ast.js';
import { BicepError, nestedTooDeeply, tooLarge } from './diagnostics.js';
import { diskFiles, FileBudget, resolveRelative, type SourceFiles } from './files.js';
import { isBicepFunction, OPERATOR_FUNCTIONS } from './functions.js';
import { parseBicep } from './parser.js';
import { isTypeSyntax, TypeWriter } from './types.js';

const OPERATORS: Record<string, (l: string, r: string) => string> = {
  '+': (l, r) => `add(${l}, ${r})`,
  '-': (l, r) => `sub(${l}, ${r})`,
  '*': (l, r) => `mul(${l}, ${r})`,
  '/': (l, r) => `div(${l}, ${r})`,
  '%': (l, r) => `mod(${l}, ${r})`,
  '==': (l, r) => `equals(${l}, ${r})`,
  '!=': (l, r) => `not(equals(${l}, ${r}))`,
  '=~': (l, r) => `equals(toLower(${l}), toLower(${r}))`,
  '!~': (l, r) => `not(equals(toLower(${l}), toLower(${r})))`,
  '<': (l, r) => `less(${l}, ${r})`,
  '<=': (l, r) => `lessOrEquals(${l}, ${r})`,
  '>': (l, r) => `greater(${l}, ${r})`,
  '>=': (l, r) => `greaterOrEquals(${l}, ${r})`,
  '&&': (l, r) => `and(${l}, ${r})`,
  '||': (l, r) => `or(${l}, ${r})`,
  '??': (l, r) => `coalesce(${l}, ${r})`,
};

/** The api-version Bicep writes on the nested deployments of modules (EmitConstants.NestedDeploymentResourceApiVersion). */
export const MODULE_API_VERSION = '2025-04-01';
const DEPLOYMENTS = 'Microsoft.Resources/deployments';
const RESOURCE_GROUPS = 'Microsoft.Resources/resourceGroups';
const SCHEMAS: Record<string, string> = {
  resourceGroup: 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#',
  subscription: 'https://schema.management.azure.com/schemas/2018-05-01/subscriptionDeploymentTemplate.json#',
};
/** A deployment name is at most 64 characters; a generated module name keeps within it (ExpressionFactory.CreateGeneratedModuleName). */
const MAX_DEPLOYMENT_NAME = 64;

/** Members of a resource body that are Bicep's, not the resource provider's. */
const BICEP_MEMBERS = new Set(['name', 'parent', 'dependsOn', 'scope']);
const MODULE_MEMBERS = ['name', 'params', 'scope', 'dependsOn'];

type At = { line: number; column: number };
type Json = Record<string, unknown>;
type TargetScope = 'resourceGroup' | 'subscription';

interface Loop {
  item?: string;
  index?: string;
  source: Expr;
}

interface ResourceInfo {
  decl: ResourceDecl;
  type: string;
  apiVersion: string;
  /** Name segments, outermost first, each with the loop it is evaluated in. */
  segments: Expr[];
  body: Expr & { kind: 'object' };
  condition?: Expr;
  loop?: Loop;
  parent?: ResourceInfo;
  /** `scope: resourceGroup('x')` on an existing resource. */
  scopeGroup?: Expr;
  /** `scope: sym` on an extension resource (a role assignment on a subnet…). */
  scopeResource?: ResourceInfo;
}

/** What a module's file declares, for checking the module's params and outputs. */
interface CompiledModule {
  template: Json;
  /** The template as JSON characters: each inclusion counts it, so shared modules cannot multiply past ARM's 4 MB. */
  size: number;
  targetScope: TargetScope;
  params: Map<string, { required: boolean }>;
  outputs: string[];
}

type ModuleScope = { kind: 'group'; subscription?: Expr; group: Expr; groupResource?: ResourceInfo } | { kind: 'subscription'; subscription?: Expr };

interface ModuleInfo {
  decl: ModuleDecl;
  body: Expr & { kind: 'object' };
  condition?: Expr;
  loop?: Loop;
  child: CompiledModule;
  scope?: ModuleScope;
}

/** Local names (loop variables) → the ARM expression they stand for. */
type Locals = Map<string, string>;

interface EmitContext {
  locals: Locals;
  /** Resources and modules this expression refers to (for implicit dependsOn). */
  refs?: Set<ResourceInfo | ModuleInfo>;
  /** The copy loop name the expression is inside (copyIndex('name') for property/variable loops). */
  copyName?: string;
  /** Lambda parameters in scope. */
  lambdas?: Set<string>;
  /** Inside a user-defined function: its parameters (nothing else of the file may be used). */
  funcParams?: Set<string>;
}

function quote(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** A literal string as a JSON template value: a leading '[' is escaped as '[['. */
function literal(text: string): string {
  return text.startsWith('[') ? `[${text}` : text;
}

function fail(at: At, code: string, message: string): never {
  throw new BicepError(code, message, at.line, at.column);
}

export interface CompileOptions {
  /** The file's path: modules, imports and load functions are relative to it. Without one, the current directory. */
  file?: string;
  files?: SourceFiles;
}

/** One compilation: every file it reads, parsed once; the modules being compiled (for cycles). */
class Session {
  readonly budget: FileBudget;
  private readonly parsed = new Map<string, Statement[]>();
  private readonly compiled = new Map<string, CompiledModule>();
  readonly stack: string[] = [];

  constructor(
    files: SourceFiles,
    readonly rootDir: string,
  ) {
    this.budget = new FileBudget(files);
  }

  /** How Bicep names a file in messages: relative to the compiled file's folder. */
  display(path: string): string {
    return relative(this.rootDir, path).split('\\').join('/') || path;
  }

  parse(path: string, at: At, source?: string): Statement[] {
    const known = this.parsed.get(path);
    if (known) return known;
    const text = source ?? this.budget.readSource(path, at);
    try {
      const statements = parseBicep(text);
      this.parsed.set(path, statements);
      return statements;
    } catch (err) {
      if (err instanceof BicepError && err.file === undefined && source === undefined) err.file = this.display(path);
      throw err;
    }
  }

  /** A module's file compiled (once per file), with BCP094/BCP095 for files that include themselves. */
  module(path: string, from: string, at: At): CompiledModule {
    if (path === from) fail(at, 'BCP094', 'This module references itself, which is not allowed.');
    const start = this.stack.indexOf(path);
    if (start >= 0) {
      const cycle = [...this.stack.slice(start), path].map((p) => this.display(p));
      fail(at, 'BCP095', `The file is involved in a cycle ("${cycle.join('" -> "')}").`);
    }
    const known = this.compiled.get(path);
    if (known) return known;
    if (this.stack.length >= LIMITS.bicepModuleDepth) tooLarge(at, `Modules are nested more than ${LIMITS.bicepModuleDepth} deep`);
    const statements = this.parse(path, at);
    this.stack.push(path);
    try {
      const compiler = new Compiler(this, path, statements);
      const template = compiler.compile();
      const result: CompiledModule = {
        template,
        size: JSON.stringify(template).length,
        targetScope: compiler.targetScope,
        params: compiler.parameterShapes(),
        outputs: compiler.outputNames(),
      };
      this.compiled.set(path, result);
      return result;
    } catch (err) {
      if (err instanceof BicepError && err.file === undefined) err.file = this.display(path);
      throw err;
    } finally {
      this.stack.pop();
    }
  }
}

/** Compiles Bicep source text (its modules and imports read relative to `options.file`). */
export function compileBicep(source: string, options: CompileOptions = {}): Json {
  const file = options.file ?? `${process.cwd()}/main.bicep`;
  const session = new Session(options.files ?? diskFiles, resolveRelative(file, '.', { line: 1, column: 1 }));
  const statements = session.parse(file, { line: 1, column: 1 }, source);
  session.stack.push(file);
  return new Compiler(session, file, statements).compile();
}

/** Compiles a .bicep file from disk (or `files`). */
export function compileBicepFile(path: string, files: SourceFiles = diskFiles): Json {
  const source = new FileBudget(files).readSource(path, { line: 1, column: 1 });
  return compileBicep(source, { file: path, files });
}

/** An imported declaration: which file's compiler declares it, and its name there. */
interface ImportTarget {
  from: Compiler;
  name: string;
}

class Compiler {
  private readonly params = new Map<string, ParamDecl>();
  private readonly vars = new Map<string, VarDecl>();
  private readonly resources = new Map<string, ResourceInfo>();
  private readonly modules = new Map<string, ModuleInfo>();
  private readonly outputs: OutputDecl[] = [];
  private readonly types = new Map<string, TypeDecl>();
  private readonly funcs = new Map<string, FuncDecl>();
  private readonly metadata: MetadataDecl[] = [];
  private readonly imports = new Map<string, ImportTarget>();
  private readonly wildcards = new Map<string, Compiler>();
  private readonly importDecls: ImportDecl[] = [];
  private readonly order: ResourceInfo[] = [];
  private readonly moduleOrder: ModuleInfo[] = [];
  private readonly names = new Set<string>();
  targetScope: TargetScope = 'resourceGroup';
  private symbolic = false;
  private nesting = 0;
  private inlinedBytes = 0;
  private declared = false;
  /** (root) The files whose declarations are being read, for import cycles. */
  private readonly importing: string[] = [];
  private readonly typeWriter: TypeWriter;

  // The template being written: this compiler's own, or (for an imported file) the importer's.
  private readonly root: Compiler;
  /** Compilers of imported files, one per file, writing into this (root) template. */
  private readonly foreign = new Map<string, Compiler>();
  /** Emitted names of imported declarations (`kind:path:name` → name), and those still to write. */
  private readonly importedNames = new Map<string, string>();
  private readonly pending: Array<{ from: Compiler; kind: 'var' | 'type' | 'func'; name: string; emitted: string }> = [];
  private readonly fileNumbers = new Map<string, number>();

  constructor(
    private readonly session: Session,
    readonly path: string,
    private readonly statements: Statement[],
    root?: Compiler,
  ) {
    this.root = root ?? this;
    this.typeWriter = new TypeWriter({
      userType: (ref) => this.userType(ref),
      constant: (e) => this.constant(e),
    });
  }

  private declare(name: string, at: At): void {
    if (this.names.has(name)) this.fail(at, 'BCP028', `Identifier "${name}" is declared multiple times. Remove or rename the duplicates.`);
    this.names.add(name);
  }

  private fail(at: At, code: string, message: string): never {
    fail(at, code, message);
  }

  /** Every declaration of the file into the symbol tables (imports resolved, modules compiled). */
  private declareAll(): void {
    if (this.declared) return;
    this.declared = true;
    this.root.importing.push(this.path);
    for (const s of this.statements) {
      switch (s.kind) {
        case 'targetScope': {
          const value = s.value.kind === 'string' && s.value.holes.length === 0 ? s.value.segments[0] : undefined;
          if (value !== 'resourceGroup' && value !== 'subscription') {
            this.fail(
              s.value,
              'BCP033',
              `aksemu deploys at resource group and subscription scope: targetScope must be 'resourceGroup' or 'subscription', not ${value === undefined ? 'an expression' : `'${value}'`}.`,
            );
          }
          this.targetScope = value;
          break;
        }
        case 'output':
          if (this.outputs.some((o) => o.name === s.name))
            this.fail(s, 'BCP145', `Output "${s.name}" is declared multiple times. Remove or rename the duplicates.`);
          this.outputs.push(s);
          break;
        case 'metadata':
          this.metadata.push(s);
          break;
        case 'import':
          this.addImport(s);
          break;
        case 'param':
        case 'var':
        case 'type':
        case 'func': {
          this.declare(s.name, s);
          const table: Record<typeof s.kind, Map<string, typeof s>> = { param: this.params, var: this.vars, type: this.types, func: this.funcs };
          table[s.kind].set(s.name, s);
          break;
        }
        case 'resource':
          this.declare(s.name, s);
          this.addResource(s, undefined);
          break;
        case 'module':
          this.declare(s.name, s);
          break;
      }
    }
    for (const info of this.order) this.resolveParent(info);
    for (const info of this.order) this.resolveScope(info);
    this.root.importing.pop();
  }

  compile(): Json {
    this.declareAll();
    for (const s of this.statements) if (s.kind === 'module') this.addModule(s);
    this.symbolic = this.usesLanguageVersion2();

    const template: Json = { $schema: SCHEMAS[this.targetScope] };
    if (this.symbolic) template['languageVersion'] = '2.0';
    template['contentVersion'] = '1.0.0.0';
    template['metadata'] = {
      _generator: { name: 'aksemu-bicep', version: '0.2.0' },
      ...Object.fromEntries(this.metadata.map((m) => [m.name, this.constant(m.value)])),
    };
    const definitions: Json = {};
    for (const t of this.types.values()) definitions[t.name] = this.typeDefinition(t, false);
    const members: Json = {};
    for (const f of this.funcs.values()) members[f.name] = this.funcDefinition(f, false);
    const parameters = Object.fromEntries([...this.params.values()].map((p) => [p.name, this.parameter(p)]));
    const variables = this.variables();
    const resources = this.symbolic
      ? Object.fromEntries([
          ...this.order.map((r) => [r.decl.name, this.resource(r)] as const),
          ...this.moduleOrder.map((m) => [m.decl.name, this.module(m)] as const),
        ])
      : [...this.order.filter((r) => !r.decl.existing).map((r) => this.resource(r)), ...this.moduleOrder.map((m) => this.module(m))];
    const outputs = Object.fromEntries(this.outputs.map((o) => [o.name, this.output(o)]));
    // What the file's declarations use of imported files, written under their emitted names.
    this.writeImported(definitions, members, variables);

    if (Object.keys(definitions).length > 0) template['definitions'] = definitions;
    if (Object.keys(members).length > 0) template['functions'] = [{ namespace: '__bicep', members }];
    if (this.params.size > 0) template['parameters'] = parameters;
    if (Object.keys(variables).length > 0) template['variables'] = variables;
    template['resources'] = resources;
    if (this.outputs.length > 0) template['outputs'] = outputs;
    const counts = { parameters: this.params.size, variables: Object.keys(variables).length, outputs: this.outputs.length };
    for (const [section, n] of Object.entries(counts)) {
      const limit = LIMITS[section as keyof typeof counts];
      if (n > limit) this.fail({ line: 1, column: 1 }, 'BCP000', `The number of template ${section} limit exceeded. Limit: '${limit}' and actual: '${n}'.`);
    }
    return template;
  }

  /** Bicep's EmitterSettings: what makes it write symbolic names (languageVersion 2.0). */
  private usesLanguageVersion2(): boolean {
    if (this.types.size > 0 || this.funcs.size > 0 || this.importDecls.length > 0) return true;
    if ([...this.params.values()].some((p) => isTypeSyntax(p.type))) return true;
    if ([...this.vars.values()].some((v) => v.type !== undefined)) return true;
    if (this.outputs.some((o) => isTypeSyntax(o.type) || o.decorators.some((d) => d.name === 'secure'))) return true;
    return this.moduleOrder.some((m) => !m.body.properties.some((p) => p.key === 'name'));
  }

  parameterShapes(): Map<string, { required: boolean }> {
    return new Map(
      [...this.params.values()].map((p) => [p.name, { required: p.defaultValue === undefined && p.type.kind !== 'nullable' && !this.nullableType(p.type) }]),
    );
  }

  outputNames(): string[] {
    return this.outputs.map((o) => o.name);
  }

  private nullableType(t: TypeExpr): boolean {
    if (t.kind === 'nullable') return true;
    if (t.kind === 'ref') {
      const user = this.userType(t);
      return user ? user.type.kind === 'nullable' : false;
    }
    return false;
  }

  // ---- imports ------------------------------------------------------------------------------

  private addImport(s: ImportDecl): void {
    this.importDecls.push(s);
    if (!s.path.toLowerCase().endsWith('.bicep') && !/^[a-z]+[:/]/i.test(s.path)) {
      this.fail(s.pathAt, 'BCP091', `An error occurred reading file. aksemu imports from Bicep files only; "${s.path}" is not a .bicep file.`);
    }
    const path = resolveRelative(this.path, s.path, s.pathAt);
    const from = this.root.foreignCompiler(path, s.pathAt);
    if (s.wildcard) {
      this.declare(s.wildcard, s);
      this.wildcards.set(s.wildcard, from);
      return;
    }
    for (const item of s.items ?? []) {
      if (!from.exported(item.name)) this.fail(item, 'BCP360', `The '${item.name}' symbol was not found in (or was not exported by) the imported template.`);
      this.declare(item.alias, item);
      this.imports.set(item.alias, { from, name: item.name });
    }
  }

  /** The compiler of an imported file, declaring into this (root) template. */
  private foreignCompiler(path: string, at: At): Compiler {
    const known = this.foreign.get(path);
    const reading = this.root.importing;
    if (reading.includes(path)) {
      // An import of a file still being read: the files import each other.
      const cycle = [...reading.slice(reading.indexOf(path)), path].map((p) => this.session.display(p));
      fail(at, 'BCP095', `The file is involved in a cycle ("${cycle.join('" -> "')}").`);
    }
    if (known) return known;
    if (this.foreign.size >= LIMITS.bicepFiles) tooLarge(at, `This compilation imports more than ${LIMITS.bicepFiles} files`);
    const compiler = new Compiler(this.session, path, this.session.parse(path, at), this);
    this.foreign.set(path, compiler);
    try {
      compiler.declareAll();
    } catch (err) {
      if (err instanceof BicepError && err.file === undefined) err.file = this.session.display(path);
      throw err;
    }
    return compiler;
  }

  private exported(name: string): boolean {
    const decl = this.vars.get(name) ?? this.types.get(name) ?? this.funcs.get(name);
    return decl !== undefined && decl.decorators.some((d) => d.name === 'export');
  }

  /** The name a declaration of `from` has in the template being written. */
  private emittedName(from: Compiler, kind: 'var' | 'type' | 'func', name: string): string {
    if (from === this.root && this.root === this) return name;
    const root = this.root;
    if (from === root) return name;
    const key = `${kind}:${from.path}:${name}`;
    const known = root.importedNames.get(key);
    if (known) return known;
    // Imported by name into the root file: its alias there; anything else it needs: `_N.name`.
    let emitted: string | undefined;
    for (const [alias, target] of root.imports) if (target.from === from && target.name === name) emitted = alias;
    if (emitted === undefined) {
      if (!root.fileNumbers.has(from.path)) root.fileNumbers.set(from.path, root.fileNumbers.size + 1);
      emitted = `_${root.fileNumbers.get(from.path)}.${name}`;
    }
    root.importedNames.set(key, emitted);
    root.pending.push({ from, kind, name, emitted });
    return emitted;
  }

  /** Writes what was imported (and what that uses) after the file's own declarations, sorted as Bicep sorts them. */
  private writeImported(definitions: Json, members: Json, variables: Json): void {
    const types: Array<[string, unknown]> = [];
    const funcs: Array<[string, unknown]> = [];
    const vars: Array<[string, unknown]> = [];
    const copies: unknown[] = [];
    for (let i = 0; i < this.pending.length; i++) {
      if (i > LIMITS.variables + LIMITS.parameters) tooLarge({ line: 1, column: 1 }, 'This template imports too many declarations');
      const item = this.pending[i]!;
      const source = { sourceTemplate: this.session.display(item.from.path) };
      if (item.kind === 'type') {
        const def = item.from.typeDefinition(item.from.types.get(item.name)!, true);
        def['metadata'] = { ...((def['metadata'] as Json | undefined) ?? {}), '__bicep_imported_from!': source };
        types.push([item.emitted, def]);
      } else if (item.kind === 'func') {
        const def = item.from.funcDefinition(item.from.funcs.get(item.name)!, true);
        def['metadata'] = { ...((def['metadata'] as Json | undefined) ?? {}), '__bicep_imported_from!': source };
        funcs.push([item.emitted, def]);
      } else {
        const decl = item.from.vars.get(item.name)!;
        if (decl.value.kind === 'for') copies.push(item.from.copyEntry(item.emitted, decl.value, { locals: new Map() }));
        else vars.push([item.emitted, item.from.value(decl.value, { locals: new Map() })]);
      }
    }
    const byName = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
    for (const [k, v] of types.sort(byName)) definitions[k] = v;
    for (const [k, v] of funcs.sort(byName)) members[k] = v;
    if (copies.length > 0) {
      const own = { ...variables };
      for (const k of Object.keys(variables)) delete variables[k];
      variables['copy'] = [...((own['copy'] as unknown[] | undefined) ?? []), ...copies];
      for (const [k, v] of Object.entries(own)) if (k !== 'copy') variables[k] = v;
    }
    for (const [k, v] of vars.sort(byName)) variables[k] = v;
  }

  /** A type reference: a type of this file, an imported one, or `ns.type` of a wildcard import. */
  private userType(ref: TypeExpr & { kind: 'ref' }): { definition: string; type: TypeExpr; decorators: Decorator[] } | undefined {
    if (ref.namespace !== undefined) {
      const from = this.wildcards.get(ref.namespace);
      if (!from) return undefined;
      const decl = from.types.get(ref.name);
      if (!decl || !from.exported(ref.name))
        this.fail(ref, 'BCP360', `The '${ref.name}' symbol was not found in (or was not exported by) the imported template.`);
      return { definition: this.emittedName(from, 'type', ref.name), type: decl.type, decorators: decl.decorators };
    }
    const own = this.types.get(ref.name);
    if (own) return { definition: this.emittedName(this, 'type', ref.name), type: own.type, decorators: own.decorators };
    const imported = this.imports.get(ref.name);
    if (imported) {
      const decl = imported.from.types.get(imported.name);
      if (!decl) this.fail(ref, 'BCP284', `The symbol "${ref.name}" is not a type.`);
      return { definition: this.emittedName(imported.from, 'type', imported.name), type: decl.type, decorators: decl.decorators };
    }
    return undefined;
  }

  private typeDefinition(t: TypeDecl, imported: boolean): Json {
    const def = this.typeWriter.write(t.type, t.decorators);
    if (!imported && t.decorators.some((d) => d.name === 'export'))
      def['metadata'] = { ...((def['metadata'] as Json | undefined) ?? {}), '__bicep_export!': true };
    return def;
  }

  private funcDefinition(f: FuncDecl, imported: boolean): Json {
    const funcParams = new Set(f.params.map((p) => p.name));
    const out: Json = {
      parameters: f.params.map((p) => ({ ...this.typeWriter.write(p.type, []), name: p.name })),
      output: { ...this.typeWriter.write(f.returns, []), value: this.value(f.body, { locals: new Map(), funcParams }) },
    };
    const description = f.decorators.find((d) => d.name === 'description');
    const metadata: Json = {};
    if (description) metadata['description'] = this.constant(description.args[0]!);
    if (!imported && f.decorators.some((d) => d.name === 'export')) metadata['__bicep_export!'] = true;
    if (Object.keys(metadata).length > 0) out['metadata'] = metadata;
    return out;
  }

  // ---- declarations -------------------------------------------------------------------------

  private loopAndCondition(value: Expr): { value: Expr; loop?: Loop; condition?: Expr } {
    let loop: Loop | undefined;
    let condition: Expr | undefined;
    if (value.kind === 'for') {
      loop = { source: value.source, ...(value.item ? { item: value.item } : {}), ...(value.index ? { index: value.index } : {}) };
      value = value.body;
    }
    if (value.kind === 'if') {
      condition = value.condition;
      value = value.body;
    }
    return { value, ...(loop ? { loop } : {}), ...(condition ? { condition } : {}) };
  }

  private addResource(decl: ResourceDecl, parent: ResourceInfo | undefined): void {
    if (this.order.length >= LIMITS.resources) tooLarge(decl, `This file declares more than ${LIMITS.resources} resources`);
    const [typePart, version] = decl.typeText.split('@') as [string, string | undefined];
    // A nested child may leave out its api-version: it takes its parent's.
    const apiVersion = version ?? parent?.apiVersion;
    if (apiVersion === undefined)
      this.fail(decl.typeAt, 'BCP029', 'The resource type is not valid. Specify a valid resource type of format "<types>@<apiVersion>".');
    const { value, loop, condition } = this.loopAndCondition(decl.value);
    if (value.kind !== 'object') this.fail(value, 'BCP018', 'Expected the "{" character at this location.');
    const nameProp = value.properties.find((p) => p.key === 'name');
    if (!nameProp) this.fail(decl, 'BCP035', `The specified "resource" declaration is missing the following required properties: "name".`);
    let type = typePart;
    if (parent && !typePart.includes('/')) type = `${parent.type}/${typePart}`;
    if (!parent && !typePart.includes('/'))
      this.fail(decl.typeAt, 'BCP029', 'The resource type is not valid. Specify a valid resource type of format "<types>@<apiVersion>".');
    const info: ResourceInfo = {
      decl,
      type,
      apiVersion,
      segments: [...(parent?.segments ?? []), nameProp.value],
      body: value,
      ...(condition ? { condition } : {}),
      ...(loop ? { loop } : {}),
      ...(parent ? { parent } : {}),
    };
    this.resources.set(decl.name, info);
    this.order.push(info);
    for (const child of value.resources) {
      this.declare(child.name, child);
      this.addResource({ ...child, parentSymbol: decl.name }, info);
    }
  }

  /** `parent: sym` makes the resource a child: its name segments start with the parent's. */
  private resolveParent(info: ResourceInfo, depth = 0): void {
    const prop = info.body.properties.find((p) => p.key === 'parent');
    if (!prop || info.parent) return;
    if (prop.value.kind !== 'ident' || !this.resources.has(prop.value.name)) {
      this.fail(prop.value, 'BCP240', 'The "parent" property only permits direct references to resources. Expressions are not supported.');
    }
    const parent = this.resources.get(prop.value.name)!;
    if (depth > LIMITS.resources) this.fail(prop.value, 'BCP080', `The expression is involved in a cycle ("${info.decl.name}" -> "${parent.decl.name}").`);
    this.resolveParent(parent, depth + 1);
    info.parent = parent;
    info.segments = [...parent.segments, info.segments[info.segments.length - 1]!];
    if (!info.type.startsWith(`${parent.type}/`) || info.type.split('/').length !== parent.type.split('/').length + 1) {
      this.fail(info.decl, 'BCP171', `Resource type "${info.type}" is not a valid child resource of parent "${parent.type}".`);
    }
  }

  /** `scope:` on a resource: resourceGroup('x') on an existing one, or another resource for an extension resource. */
  private resolveScope(info: ResourceInfo): void {
    const scope = info.body.properties.find((p) => p.key === 'scope');
    if (!scope) return;
    const v = scope.value;
    if (v.kind === 'ident' && this.resources.has(v.name)) {
      info.scopeResource = this.resources.get(v.name)!;
      return;
    }
    if (info.decl.existing && v.kind === 'call' && v.name === 'resourceGroup' && v.args.length === 1) {
      info.scopeGroup = v.args[0]!;
      return;
    }
    this.fail(
      scope,
      'BCP139',
      "A resource's scope must match the scope of the Bicep file for it to be deployable. You must use modules to deploy resources to a different scope.",
    );
  }

  private addModule(decl: ModuleDecl): void {
    const { value, loop, condition } = this.loopAndCondition(decl.value);
    if (value.kind !== 'object') this.fail(value, 'BCP018', 'Expected the "{" character at this location.');
    for (const p of value.properties) {
      if (!p.spread && !MODULE_MEMBERS.includes(p.key))
        this.fail(
          p,
          'BCP037',
          `The property "${p.key}" is not allowed on objects of type "module". Permissible properties include ${MODULE_MEMBERS.map((m) => `"${m}"`).join(', ')}.`,
        );
    }
    if (!decl.path.toLowerCase().endsWith('.bicep') && !/^[a-z]+[:/]/i.test(decl.path)) {
      this.fail(decl.pathAt, 'BCP091', `An error occurred reading file. aksemu compiles Bicep modules only; "${decl.path}" is not a .bicep file.`);
    }
    const path = resolveRelative(this.path, decl.path, decl.pathAt);
    const child = this.session.module(path, this.path, decl.pathAt);
    this.inlinedBytes += child.size;
    if (this.inlinedBytes > LIMITS.templateBytes)
      tooLarge(decl, `The modules of this file inline more than ${LIMITS.templateBytes} characters of templates (ARM takes 4 MB)`);
    const info: ModuleInfo = { decl, body: value, child, ...(loop ? { loop } : {}), ...(condition ? { condition } : {}) };
    const scope = value.properties.find((p) => p.key === 'scope');
    const resolved = scope ? this.moduleScope(scope.value) : undefined;
    if (resolved) info.scope = resolved;
    const effective = info.scope ? (info.scope.kind === 'group' ? 'resourceGroup' : 'subscription') : this.targetScope;
    if (effective !== child.targetScope) {
      const describe = (s: TargetScope) => (s === 'resourceGroup' ? 'resource group' : 'subscription');
      this.fail(scope ?? decl, 'BCP134', `Scope "${describe(effective)}" is not valid for this module. Permitted scopes: "${describe(child.targetScope)}".`);
    }
    this.checkModuleParams(info);
    this.modules.set(decl.name, info);
    this.moduleOrder.push(info);
  }

  private moduleScope(v: Expr): ModuleScope | undefined {
    if (v.kind === 'ident' && this.resources.get(v.name)?.type.toLowerCase() === RESOURCE_GROUPS.toLowerCase()) {
      const rg = this.resources.get(v.name)!;
      return { kind: 'group', group: rg.segments[0]!, groupResource: rg };
    }
    if (v.kind === 'call' && (v.namespace === undefined || v.namespace === 'az')) {
      if (v.name === 'resourceGroup') {
        if (v.args.length === 0) {
          if (this.targetScope !== 'resourceGroup')
            this.fail(v, 'BCP113', 'Scope "resourceGroup" requires a resource group name when deployed at subscription scope.');
          return undefined;
        }
        return v.args.length === 1 ? { kind: 'group', group: v.args[0]! } : { kind: 'group', subscription: v.args[0]!, group: v.args[1]! };
      }
      if (v.name === 'subscription') return v.args.length === 0 ? { kind: 'subscription' } : { kind: 'subscription', subscription: v.args[0]! };
    }
    this.fail(v, 'BCP134', "aksemu's Bicep compiler takes a module scope of resourceGroup(…), a resource group symbol or subscription(…).");
  }

  private checkModuleParams(info: ModuleInfo): void {
    const params = info.body.properties.find((p) => p.key === 'params');
    const given = new Set<string>();
    let spread = false;
    if (params) {
      if (params.value.kind !== 'object') this.fail(params.value, 'BCP183', 'The value of the module "params" property must be an object literal.');
      for (const p of params.value.properties) {
        if (p.spread) {
          spread = true;
          continue;
        }
        if (!info.child.params.has(p.key)) {
          const names = [...info.child.params.keys()].map((n) => `"${n}"`).join(', ');
          this.fail(
            p,
            'BCP037',
            `The property "${p.key}" is not allowed on objects of type "params". ${names ? `Permissible properties include ${names}.` : 'No other properties are allowed.'}`,
          );
        }
        given.add(p.key);
      }
    }
    const missing = [...info.child.params].filter(([n, s]) => s.required && !given.has(n)).map(([n]) => `"${n}"`);
    if (missing.length > 0 && !spread) {
      this.fail(
        params ?? info.decl,
        'BCP035',
        `The specified "${params ? 'object' : 'module'}" declaration is missing the following required properties: ${missing.join(', ')}.`,
      );
    }
  }

  private decorator(decorators: Decorator[], name: string): Decorator | undefined {
    return decorators.find((d) => d.name === name);
  }

  /** A compile-time value (decorator arguments, metadata): a literal, not an expression to evaluate. */
  private constant(e: Expr): unknown {
    return this.value(e, { locals: new Map() });
  }

  /** A literal of the wrong primitive type (`param n int = 'a'`), as Bicep's type check words it. */
  private checkLiteral(type: TypeExpr, value: Expr, code: 'BCP033' | 'BCP026'): void {
    if (type.kind !== 'ref' || type.namespace !== undefined || this.userType(type)) return;
    const actual =
      value.kind === 'string' && value.holes.length === 0
        ? { type: 'string', shown: `'${value.segments[0]}'` }
        : value.kind === 'number'
          ? { type: 'int', shown: String(value.value) }
          : value.kind === 'bool'
            ? { type: 'bool', shown: String(value.value) }
            : value.kind === 'object'
              ? { type: 'object', shown: 'object' }
              : undefined;
    if (!actual || actual.type === type.name || !['string', 'int', 'bool', 'object', 'array'].includes(type.name)) return;
    const sentence = code === 'BCP033' ? 'Expected a value of type' : 'The output expects a value of type';
    this.fail(value, code, `${sentence} "${type.name}" but the provided value is of type "${actual.shown}".`);
  }

  private parameter(p: ParamDecl): Json {
    if (p.defaultValue) this.checkLiteral(p.type, p.defaultValue, 'BCP033');
    const extra = p.defaultValue ? { defaultValue: this.value(p.defaultValue, { locals: new Map() }) } : {};
    return this.typeWriter.write(p.type, p.decorators, extra);
  }

  private variables(): Json {
    const out: Json = {};
    const copies: unknown[] = [];
    for (const v of this.vars.values()) {
      if (v.value.kind === 'for') copies.push(this.copyEntry(v.name, v.value, { locals: new Map() }));
      else out[v.name] = this.value(v.value, { locals: new Map() });
    }
    return copies.length > 0 ? { copy: copies, ...out } : out;
  }

  private output(o: OutputDecl): Json {
    this.checkLiteral(o.type, o.value, 'BCP026');
    const out = this.typeWriter.write(o.type, o.decorators);
    const metadata = out['metadata'];
    delete out['metadata'];
    let value = o.value;
    if (value.kind === 'if') {
      out['condition'] = this.wrap(this.expr(value.condition, { locals: new Map() }));
      value = value.body;
    }
    if (value.kind === 'for') {
      // An output's copy has no name: its loop index is copyIndex().
      const { locals } = this.loopLocals(value, undefined, { locals: new Map() });
      out['copy'] = {
        count: this.wrap(`length(${this.expr(value.source, { locals: new Map() })})`),
        input: this.value(value.body, { locals }),
      };
    } else out['value'] = this.value(value, { locals: new Map() });
    if (metadata !== undefined) out['metadata'] = metadata;
    return out;
  }

  private description(decorators: Decorator[]): Json | undefined {
    const d = this.decorator(decorators, 'description');
    return d ? { description: this.constant(d.args[0]!) } : undefined;
  }

  private resource(info: ResourceInfo): Json {
    const refs = new Set<ResourceInfo | ModuleInfo>();
    const symbol = info.decl.name;
    const loop = info.loop;
    const ctx: EmitContext = { locals: new Map(), refs };
    const out: Json = {};
    if (loop) {
      Object.assign(ctx, this.loopLocals(loop, undefined, ctx));
      const copy: Json = { name: symbol, count: this.wrap(`length(${this.expr(loop.source, { locals: new Map(), refs })})`) };
      const batch = this.decorator(info.decl.decorators, 'batchSize');
      if (batch) Object.assign(copy, { mode: 'serial', batchSize: this.constant(batch.args[0]!) });
      out['copy'] = copy;
    }
    if (info.condition) out['condition'] = this.wrap(this.expr(info.condition, ctx));
    if (this.symbolic && info.decl.existing) out['existing'] = true;
    out['type'] = info.type;
    out['apiVersion'] = info.apiVersion;
    if (info.scopeResource) out['scope'] = this.wrap(this.resourceMember(info.scopeResource, 'id', ctx, undefined, info.decl));
    if (info.scopeGroup) out['resourceGroup'] = this.value(info.scopeGroup, ctx);
    out['name'] = this.nameValue(info, ctx);
    for (const p of info.body.properties) {
      if (p.spread)
        this.fail(p, 'BCP396', "Spread (`...`) is not compiled at the top of a resource body by aksemu's Bicep compiler: spread inside `properties`.");
      if (BICEP_MEMBERS.has(p.key)) continue;
      out[p.key] = this.value(p.value, ctx);
    }
    if (info.parent) refs.add(info.parent);
    return this.finish(out, info, refs, ctx);
  }

  /** dependsOn (implicit, explicit) and the description's metadata, last, as Bicep orders them. */
  private finish(out: Json, info: ResourceInfo | ModuleInfo, refs: Set<ResourceInfo | ModuleInfo>, ctx: EmitContext): Json {
    this.explicitDependencies(info.body, refs);
    refs.delete(info);
    const dependsOn = this.dependsOn(refs, ctx);
    if (dependsOn.length > 0) out['dependsOn'] = dependsOn;
    const description = this.description(info.decl.decorators);
    if (description) out['metadata'] = description;
    return out;
  }

  private explicitDependencies(body: Expr & { kind: 'object' }, refs: Set<ResourceInfo | ModuleInfo>): void {
    const explicit = body.properties.find((p) => p.key === 'dependsOn');
    if (!explicit) return;
    if (explicit.value.kind !== 'array')
      this.fail(explicit.value, 'BCP034', 'The enclosing array expected an item of type "module[] | (resource | module) | resource[]".');
    for (const item of explicit.value.items) {
      const name = item.kind === 'ident' ? item.name : item.kind === 'index' && item.target.kind === 'ident' ? item.target.name : undefined;
      const target = name === undefined ? undefined : (this.resources.get(name) ?? this.modules.get(name));
      if (!target)
        this.fail(
          item,
          'BCP034',
          'The enclosing array expected an item of type "module[] | (resource | module) | resource[]", but the provided item was not a resource symbol.',
        );
      refs.add(target);
    }
  }

  private dependsOn(refs: Set<ResourceInfo | ModuleInfo>, ctx: EmitContext): string[] {
    const position = (r: ResourceInfo | ModuleInfo) => ('type' in r ? this.order.indexOf(r) : this.order.length + this.moduleOrder.indexOf(r));
    const deployed = [...refs].filter((r) => !('existing' in r.decl && r.decl.existing)).sort((a, b) => position(a) - position(b));
    if (this.symbolic) return deployed.map((r) => r.decl.name).sort();
    return deployed.map((r) => {
      if (r.loop) return r.decl.name;
      return this.wrap('type' in r ? this.resourceId(r, ctx) : this.moduleId(r, ctx));
    });
  }

  // ---- modules --------------------------------------------------------------------------------

  private moduleNameExpr(info: ModuleInfo, ctx: EmitContext, index?: string): string {
    const name = info.body.properties.find((p) => p.key === 'name');
    if (name) return this.expr(name.value, this.bindLoop(info.loop, ctx, index));
    const symbol = info.decl.name;
    const unique = `uniqueString(${quote(symbol)}, deployment().name)`;
    if (info.loop) {
      const prefix = symbol.slice(0, MAX_DEPLOYMENT_NAME - 13 - 3 - 2);
      return `format(${quote(`${prefix}-{0}-{1}`)}, ${index ?? 'copyIndex()'}, ${unique})`;
    }
    return `format(${quote(`${symbol.slice(0, MAX_DEPLOYMENT_NAME - 13 - 1)}-{0}`)}, ${unique})`;
  }

  /** The loop's variables bound to an index (a reference `m[i]` from outside the loop). */
  private bindLoop(loop: Loop | undefined, ctx: EmitContext, index?: string): EmitContext {
    if (!loop || index === undefined) return ctx;
    const locals = new Map(ctx.locals);
    if (loop.item) locals.set(loop.item, `${this.expr(loop.source, ctx)}[${index}]`);
    if (loop.index) locals.set(loop.index, index);
    return { ...ctx, locals };
  }

  /** The deployment's resource id, as Bicep writes it for the module's scope. */
  private moduleId(info: ModuleInfo, ctx: EmitContext, index?: string): string {
    const name = this.moduleNameExpr(info, ctx, index);
    const bound = this.bindLoop(info.loop, ctx, index);
    const scope = info.scope;
    const type = quote(DEPLOYMENTS);
    if (!scope) return this.targetScope === 'subscription' ? `subscriptionResourceId(${type}, ${name})` : `resourceId(${type}, ${name})`;
    if (scope.kind === 'subscription') {
      const sub = scope.subscription ? `${this.expr(scope.subscription, bound)}, ` : '';
      return `subscriptionResourceId(${sub}${type}, ${name})`;
    }
    const group = this.expr(scope.group, bound);
    if (this.targetScope === 'subscription') {
      const sub = scope.subscription ? this.expr(scope.subscription, bound) : 'subscription().subscriptionId';
      return `extensionResourceId(format('/subscriptions/{0}/resourceGroups/{1}', ${sub}, ${group}), ${type}, ${name})`;
    }
    const sub = scope.subscription ? `${this.expr(scope.subscription, bound)}, ` : '';
    return `resourceId(${sub}${group}, ${type}, ${name})`;
  }

  private module(info: ModuleInfo): Json {
    const refs = new Set<ResourceInfo | ModuleInfo>();
    const ctx: EmitContext = { locals: new Map(), refs };
    const out: Json = {};
    if (info.loop) {
      Object.assign(ctx, this.loopLocals(info.loop, undefined, ctx));
      const copy: Json = { name: info.decl.name, count: this.wrap(`length(${this.expr(info.loop.source, { locals: new Map(), refs })})`) };
      const batch = this.decorator(info.decl.decorators, 'batchSize');
      if (batch) Object.assign(copy, { mode: 'serial', batchSize: this.constant(batch.args[0]!) });
      out['copy'] = copy;
    }
    if (info.condition) out['condition'] = this.wrap(this.expr(info.condition, ctx));
    out['type'] = DEPLOYMENTS;
    out['apiVersion'] = MODULE_API_VERSION;
    const nameProp = info.body.properties.find((p) => p.key === 'name');
    out['name'] = nameProp ? this.value(nameProp.value, ctx) : this.wrap(this.moduleNameExpr(info, ctx));
    const scope = info.scope;
    if (scope?.kind === 'group') {
      if (scope.subscription) out['subscriptionId'] = this.value(scope.subscription, ctx);
      out['resourceGroup'] = this.value(scope.group, ctx);
      if (scope.groupResource) refs.add(scope.groupResource);
    } else if (scope?.kind === 'subscription' || (!scope && this.targetScope === 'subscription')) {
      if (scope?.kind === 'subscription' && scope.subscription) out['subscriptionId'] = this.value(scope.subscription, ctx);
      out['location'] = this.targetScope === 'subscription' ? '[deployment().location]' : '[resourceGroup().location]';
    }
    const properties: Json = { expressionEvaluationOptions: { scope: 'inner' }, mode: 'Incremental' };
    const params = info.body.properties.find((p) => p.key === 'params');
    if (params && params.value.kind === 'object') {
      const values: Json = {};
      for (const p of params.value.properties) {
        if (p.spread) this.fail(p, 'BCP396', "Spread (`...`) in module params is not compiled by aksemu's Bicep compiler.");
        values[p.key] = p.value.kind === 'for' ? { copy: [this.copyEntry('value', p.value, ctx)] } : { value: this.value(p.value, ctx) };
      }
      properties['parameters'] = values;
    }
    properties['template'] = info.child.template;
    out['properties'] = properties;
    return this.finish(out, info, refs, ctx);
  }

  /** m.outputs.x, m.name, with m[i] for collections. */
  private moduleMember(info: ModuleInfo, path: string[], ctx: EmitContext, index: string | undefined, at: Expr): string {
    if (info.loop && index === undefined && this.loopUnbound(info.loop, ctx)) {
      this.fail(
        at,
        'BCP144',
        'Directly referencing a resource or module collection is not currently supported here. Apply an array indexer to the expression.',
      );
    }
    ctx.refs?.add(info);
    const [member, output, ...rest] = path;
    if (member === 'name') return this.moduleNameExpr(info, ctx, index);
    if (member !== 'outputs')
      this.fail(at, 'BCP053', `The type "module" does not contain property "${member}". Available properties include "name", "outputs".`);
    const reference = this.symbolic
      ? `reference(${index === undefined || !info.loop ? quote(info.decl.name) : `format(${quote(`${info.decl.name}[{0}]`)}, ${index})`})`
      : `reference(${this.moduleId(info, ctx, index)}, ${quote(MODULE_API_VERSION)})`;
    if (output === undefined) return `${reference}.outputs`;
    if (!info.child.outputs.includes(output)) {
      const names = info.child.outputs.map((n) => `"${n}"`).join(', ');
      this.fail(at, 'BCP053', `The type "outputs" does not contain property "${output}". Available properties include ${names || 'none'}.`);
    }
    return `${reference}.outputs.${output}.value${rest.map((r) => `.${r}`).join('')}`;
  }

  // ---- loops --------------------------------------------------------------------------------

  /** The loop's variables: item → source[copyIndex()], index → copyIndex() (named for property/variable loops). */
  private loopLocals(loop: Loop, copyName: string | undefined, outer: EmitContext): EmitContext {
    const locals = new Map(outer.locals);
    const index = copyName === undefined ? 'copyIndex()' : `copyIndex(${quote(copyName)})`;
    if (loop.item) locals.set(loop.item, `${this.expr(loop.source, outer)}[${index}]`);
    if (loop.index) locals.set(loop.index, index);
    return { ...outer, locals };
  }

  private copyEntry(name: string, loop: Expr & { kind: 'for' }, outer: EmitContext): Json {
    const inner = this.loopLocals(loop, name, outer);
    if (loop.body.kind === 'if') this.fail(loop.body, 'BCP138', 'Filtered (if) for-expressions are supported on resources and modules only.');
    return { name, count: this.wrap(`length(${this.expr(loop.source, outer)})`), input: this.value(loop.body, { ...inner, copyName: name }) };
  }

  // ---- resource references ------------------------------------------------------------------

  /** The name segments evaluated where the reference is written: an indexed collection binds its loop variables to the index. */
  private segmentExprs(info: ResourceInfo, ctx: EmitContext, index?: string): string[] {
    return info.segments.map((segment, i) => {
      const owner = this.ownerOfSegment(info, i);
      return this.expr(segment, this.bindLoop(owner.loop, ctx, index));
    });
  }

  private ownerOfSegment(info: ResourceInfo, i: number): ResourceInfo {
    let owner = info;
    for (let k = info.segments.length - 1; k > i; k--) owner = owner.parent!;
    return owner;
  }

  private resourceId(info: ResourceInfo, ctx: EmitContext, index?: string): string {
    const segments = this.segmentExprs(info, ctx, index);
    if (info.scopeResource) {
      return `extensionResourceId(${this.resourceId(info.scopeResource, ctx)}, ${quote(info.type)}, ${segments.join(', ')})`;
    }
    if (info.scopeGroup) {
      const group = this.expr(info.scopeGroup, ctx);
      if (this.targetScope === 'subscription')
        return `extensionResourceId(format('/subscriptions/{0}/resourceGroups/{1}', subscription().subscriptionId, ${group}), ${quote(info.type)}, ${segments.join(', ')})`;
      return `resourceId(${group}, ${quote(info.type)}, ${segments.join(', ')})`;
    }
    const fn = this.targetScope === 'subscription' ? 'subscriptionResourceId' : 'resourceId';
    return `${fn}(${quote(info.type)}, ${segments.join(', ')})`;
  }

  private nameValue(info: ResourceInfo, ctx: EmitContext): unknown {
    if (info.segments.length === 1) return this.value(info.segments[0]!, ctx);
    const segments = this.segmentExprs(info, ctx);
    return this.wrap(`format(${quote(segments.map((_, i) => `{${i}}`).join('/'))}, ${segments.join(', ')})`);
  }

  /** r.id, r.name, r.properties.x, r.location …, with r[i] for collections. */
  private resourceMember(info: ResourceInfo, member: string, ctx: EmitContext, index: string | undefined, at: At): string {
    if (info.loop && index === undefined && this.loopUnbound(info.loop, ctx)) {
      this.fail(
        at,
        'BCP144',
        'Directly referencing a resource or module collection is not currently supported here. Apply an array indexer to the expression.',
      );
    }
    // Referring to a resource deploys after it; an existing one, after its deployed parent.
    let dependency: ResourceInfo | undefined = info;
    while (dependency?.decl.existing) dependency = dependency.parent;
    if (dependency) ctx.refs?.add(dependency);
    const symbolRef = info.loop && index !== undefined ? `format(${quote(`${info.decl.name}[{0}]`)}, ${index})` : quote(info.decl.name);
    switch (member) {
      case 'id':
        return this.resourceId(info, ctx, index);
      case 'name':
        return this.segmentExprs(info, ctx, index).slice(-1)[0]!;
      case 'type':
        return quote(info.type);
      case 'apiVersion':
        return quote(info.apiVersion);
      case 'properties':
        return this.symbolic ? `reference(${symbolRef})` : `reference(${this.resourceId(info, ctx, index)}, ${quote(info.apiVersion)})`;
      default:
        return this.symbolic
          ? `reference(${symbolRef}, ${quote(info.apiVersion)}, 'full').${member}`
          : `reference(${this.resourceId(info, ctx, index)}, ${quote(info.apiVersion)}, 'full').${member}`;
    }
  }

  /** Inside the collection's own loop the loop variables are bound, so no indexer is needed. */
  private loopUnbound(loop: Loop, ctx: EmitContext): boolean {
    return !(loop.item && ctx.locals.has(loop.item)) && !(loop.index && ctx.locals.has(loop.index));
  }

  // ---- expressions --------------------------------------------------------------------------

  private wrap(expression: string): string {
    return `[${expression}]`;
  }

  /** A template JSON value: literals stay JSON, objects and arrays stay structured, the rest is "[expr]". */
  private value(e: Expr, ctx: EmitContext): unknown {
    switch (e.kind) {
      case 'string':
        return e.holes.length === 0 ? literal(e.segments[0]!) : this.wrap(this.expr(e, ctx));
      case 'number':
        return e.value;
      case 'bool':
        return e.value;
      case 'null':
        return null;
      case 'object': {
        if (e.properties.some((p) => p.spread)) return this.wrap(this.expr(e, ctx));
        const out: Json = {};
        const copies: unknown[] = [];
        for (const p of e.properties) {
          if (p.value.kind === 'for') copies.push(this.copyEntry(p.key, p.value, ctx));
          else out[p.key] = this.value(p.value, ctx);
        }
        if (e.resources.length > 0) this.fail(e.resources[0]!, 'BCP157', 'Nested resources are allowed only in a resource body.');
        return copies.length > 0 ? { copy: copies, ...out } : out;
      }
      case 'array':
        if (e.items.some((i) => i.kind === 'spread')) return this.wrap(this.expr(e, ctx));
        return e.items.map((item) => this.value(item, ctx));
      case 'call':
        if (e.namespace === undefined || e.namespace === 'sys') {
          const loaded = this.loadFunction(e);
          if (loaded !== undefined) return typeof loaded === 'string' ? literal(loaded) : this.jsonValue(loaded);
        }
        return this.wrap(this.expr(e, ctx));
      case 'for':
        this.fail(
          e,
          'BCP138',
          'For-expressions are not supported in this context. For-expressions may be used as values of resource, module, variable, and output declarations, or values of resource and module properties.',
        );
      // falls through (fail never returns)
      default:
        return this.wrap(this.expr(e, ctx));
    }
  }

  /** A JSON value read at compile time, as template JSON: strings starting with '[' escaped. */
  private jsonValue(v: unknown): unknown {
    if (typeof v === 'string') return literal(v);
    if (Array.isArray(v)) return v.map((x) => this.jsonValue(x));
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.jsonValue(x)]));
    return v;
  }

  /** A JSON value as an ARM expression (inside a larger expression). */
  private jsonExpr(v: unknown): string {
    if (typeof v === 'string') return quote(v);
    if (typeof v === 'number') return Number.isInteger(v) ? String(v) : `json(${quote(String(v))})`;
    if (typeof v === 'boolean') return v ? 'true()' : 'false()';
    if (v === null) return 'null()';
    if (Array.isArray(v)) return `createArray(${v.map((x) => this.jsonExpr(x)).join(', ')})`;
    const entries = Object.entries(v as Json);
    return entries.length === 0 ? 'createObject()' : `createObject(${entries.map(([k, x]) => `${quote(k)}, ${this.jsonExpr(x)}`).join(', ')})`;
  }

  /** loadTextContent / loadJsonContent / loadFileAsBase64: read now, relative to this file. */
  private loadFunction(e: Expr & { kind: 'call' }): unknown {
    if (e.name !== 'loadTextContent' && e.name !== 'loadJsonContent' && e.name !== 'loadFileAsBase64') return undefined;
    const arg = e.args[0];
    if (!arg || arg.kind !== 'string' || arg.holes.length > 0) {
      this.fail(arg ?? e, 'BCP032', 'The value must be a compile-time constant.');
    }
    const path = resolveRelative(this.path, arg.segments[0]!, arg);
    const budget = this.session.budget;
    if (e.name === 'loadTextContent') return budget.text(path, arg);
    if (e.name === 'loadFileAsBase64') return budget.base64(path, arg);
    let json = budget.json(path, arg);
    const jsonPath = e.args[1];
    if (jsonPath) {
      if (jsonPath.kind !== 'string' || jsonPath.holes.length > 0) this.fail(jsonPath, 'BCP032', 'The value must be a compile-time constant.');
      const steps = /^\$((\.[A-Za-z_][\w-]*|\[\d+\])*)$/.exec(jsonPath.segments[0]!);
      if (!steps) this.fail(jsonPath, 'BCP235', "aksemu's Bicep compiler takes JSONPaths of the form $.a.b[0] only.");
      for (const step of steps[1]!.match(/\.[A-Za-z_][\w-]*|\[\d+\]/g) ?? []) {
        const key = step.startsWith('.') ? step.slice(1) : Number(step.slice(1, -1));
        const next = json !== null && typeof json === 'object' ? (json as Record<string | number, unknown>)[key] : undefined;
        if (next === undefined || !Object.hasOwn(json as object, key))
          this.fail(jsonPath, 'BCP235', 'Specified JSONPath does not exist in the given file or is invalid.');
        json = next;
      }
    }
    return json;
  }

  /** ARM expression text (without brackets); operator and member chains nest here even when parsed flat. */
  private expr(e: Expr, ctx: EmitContext): string {
    if (++this.nesting > LIMITS.bicepNesting) nestedTooDeeply(e);
    try {
      return this.exprText(e, ctx);
    } finally {
      this.nesting--;
    }
  }

  /** `a.?b.c`: once an access is safe, the rest of the chain is too, as one tryGet(a, 'b', 'c'). */
  private safeChain(e: Expr): boolean {
    return (e.kind === 'member' || e.kind === 'index') && (e.safe || this.safeChain(e.target));
  }

  private exprText(e: Expr, ctx: EmitContext): string {
    switch (e.kind) {
      case 'string': {
        if (e.holes.length === 0) return quote(e.segments[0]!);
        const format = e.segments.map((s, i) => s.replace(/\{/g, '{{').replace(/\}/g, '}}') + (i < e.holes.length ? `{${i}}` : '')).join('');
        return `format(${quote(format)}, ${e.holes.map((h) => this.expr(h, ctx)).join(', ')})`;
      }
      case 'number':
        return String(e.value);
      case 'bool':
        return e.value ? 'true()' : 'false()';
      case 'null':
        return 'null()';
      case 'ident':
        return this.identifier(e.name, ctx, e);
      case 'call':
        return this.call(e, ctx);
      case 'member':
        return this.member(e, ctx);
      case 'index': {
        if (e.target.kind === 'ident' && (this.resources.has(e.target.name) || this.modules.has(e.target.name))) {
          this.fail(
            e,
            'BCP144',
            'Directly referencing a resource or module collection is not currently supported here. Apply an array indexer to the expression.',
          );
        }
        const index = this.expr(e.index, ctx);
        if (e.safe) return `tryGet(${this.expr(e.target, ctx)}, ${index})`;
        if (this.safeChain(e.target)) return `${this.expr(e.target, ctx).slice(0, -1)}, ${index})`;
        return `${this.expr(e.target, ctx)}[${index}]`;
      }
      case 'unary':
        return e.op === '!' ? `not(${this.expr(e.operand, ctx)})` : `sub(0, ${this.expr(e.operand, ctx)})`;
      case 'binary':
        return OPERATORS[e.op]!(this.expr(e.left, ctx), this.expr(e.right, ctx));
      case 'ternary':
        return `if(${this.expr(e.condition, ctx)}, ${this.expr(e.then, ctx)}, ${this.expr(e.else, ctx)})`;
      case 'object':
        return this.objectExpr(e, ctx);
      case 'array':
        return this.arrayExpr(e, ctx);
      case 'lambda': {
        const lambdas = new Set([...(ctx.lambdas ?? []), ...e.params]);
        const locals = new Map(ctx.locals);
        for (const p of e.params) locals.delete(p);
        const body = this.expr(e.body, { ...ctx, locals, lambdas });
        return `lambda(${[...e.params.map(quote), body].join(', ')})`;
      }
      case 'spread':
        this.fail(e, 'BCP009', 'Expected a literal value, an array, an object, a parenthesized expression, or a function call at this location.');
      // falls through (fail never returns)
      case 'for':
      case 'if':
        this.fail(e, 'BCP138', 'For-expressions are not supported in this context.');
    }
  }

  private objectExpr(e: Expr & { kind: 'object' }, ctx: EmitContext): string {
    const entry = (p: Property) => {
      if (p.value.kind === 'for') this.fail(p.value, 'BCP138', 'For-expressions are not supported in this context.');
      return `${quote(p.key)}, ${this.expr(p.value, ctx)}`;
    };
    if (!e.properties.some((p) => p.spread)) {
      return e.properties.length === 0 ? 'createObject()' : `createObject(${e.properties.map(entry).join(', ')})`;
    }
    // Spread: runs of plain properties become objects, merged in order (later members win).
    const parts = this.spreadParts(
      e.properties,
      (p) => (p.spread ? p.value : undefined),
      (run) => `createObject(${run.map(entry).join(', ')})`,
      ctx,
    );
    return `shallowMerge(createArray(${parts.join(', ')}))`;
  }

  private arrayExpr(e: Expr & { kind: 'array' }, ctx: EmitContext): string {
    const items = (run: Expr[]) => `createArray(${run.map((i) => this.expr(i, ctx)).join(', ')})`;
    if (!e.items.some((i) => i.kind === 'spread')) return items(e.items);
    const parts = this.spreadParts(e.items, (i) => (i.kind === 'spread' ? i.value : undefined), items, ctx);
    return `flatten(createArray(${parts.join(', ')}))`;
  }

  /** The members of an object or array with spreads: each run of plain members as `run` writes it, each spread's value, in order. */
  private spreadParts<T>(members: T[], spreadOf: (m: T) => Expr | undefined, run: (members: T[]) => string, ctx: EmitContext): string[] {
    const parts: string[] = [];
    let pending: T[] = [];
    for (const m of members) {
      const spread = spreadOf(m);
      if (spread === undefined) {
        pending.push(m);
        continue;
      }
      if (pending.length > 0) parts.push(run(pending));
      pending = [];
      parts.push(this.expr(spread, ctx));
    }
    if (pending.length > 0) parts.push(run(pending));
    return parts;
  }

  private member(e: Expr & { kind: 'member' }, ctx: EmitContext): string {
    // A resource's or module's members, written as ARM wants them.
    const path: string[] = [];
    let target: Expr = e;
    while (target.kind === 'member' && !target.safe) {
      path.unshift(target.name);
      target = target.target;
    }
    const symbol = this.symbolOf(target);
    if (symbol && path.length > 0) {
      const index = symbol.index === undefined ? undefined : this.expr(symbol.index, ctx);
      if ('type' in symbol.info) {
        const [first, ...rest] = path;
        const head = this.resourceMember(symbol.info, first!, ctx, index, e);
        return `${head}${rest.map((r) => `.${r}`).join('')}`;
      }
      return this.moduleMember(symbol.info, path, ctx, index, e);
    }
    // `ns.x` of a wildcard import.
    if (e.target.kind === 'ident' && this.wildcards.has(e.target.name) && !ctx.locals.has(e.target.name)) {
      const from = this.wildcards.get(e.target.name)!;
      if (!from.vars.has(e.name) || !from.exported(e.name))
        this.fail(e, 'BCP360', `The '${e.name}' symbol was not found in (or was not exported by) the imported template.`);
      return `variables(${quote(this.emittedName(from, 'var', e.name))})`;
    }
    const inner = this.expr(e.target, ctx);
    if (e.safe) return `tryGet(${inner}, ${quote(e.name)})`;
    if (this.safeChain(e.target)) return `${inner.slice(0, -1)}, ${quote(e.name)})`;
    return `${inner}.${e.name}`;
  }

  /** `sym` or `sym[i]` when sym is a resource or module. */
  private symbolOf(e: Expr): { info: ResourceInfo | ModuleInfo; index?: Expr } | undefined {
    const lookup = (name: string) => this.resources.get(name) ?? this.modules.get(name);
    if (e.kind === 'ident' && lookup(e.name)) return { info: lookup(e.name)! };
    if (e.kind === 'index' && !e.safe && e.target.kind === 'ident' && lookup(e.target.name)) return { info: lookup(e.target.name)!, index: e.index };
    return undefined;
  }

  private identifier(name: string, ctx: EmitContext, at: Expr): string {
    const local = ctx.locals.get(name);
    if (local !== undefined) return local;
    if (ctx.lambdas?.has(name)) return `lambdaVariables(${quote(name)})`;
    if (ctx.funcParams) {
      if (ctx.funcParams.has(name)) return `parameters(${quote(name)})`;
      this.fail(at, 'BCP057', `The name "${name}" does not exist in the current context.`);
    }
    if (this.params.has(name)) return `parameters(${quote(name)})`;
    if (this.vars.has(name)) return `variables(${quote(this.emittedName(this, 'var', name))})`;
    const imported = this.imports.get(name);
    if (imported) {
      if (!imported.from.vars.has(imported.name)) this.fail(at, 'BCP063', `The name "${name}" is not a parameter, variable, resource or module.`);
      return `variables(${quote(this.emittedName(imported.from, 'var', imported.name))})`;
    }
    if (this.resources.has(name) || this.modules.has(name)) {
      this.fail(
        at,
        'BCP062',
        `The referenced declaration with name "${name}" is a ${this.modules.has(name) ? 'module' : 'resource'}: use one of its properties (${name}.id, ${name}.name, ${name}.outputs…).`,
      );
    }
    this.fail(at, 'BCP057', `The name "${name}" does not exist in the current context.`);
  }

  /** A user-defined function (own or imported), by the name it is called with. */
  private userFunction(e: Expr & { kind: 'call' }): { from: Compiler; decl: FuncDecl } | undefined {
    if (e.namespace !== undefined) {
      const from = this.wildcards.get(e.namespace);
      if (!from) return undefined;
      const decl = from.funcs.get(e.name);
      if (!decl || !from.exported(e.name)) this.fail(e, 'BCP360', `The '${e.name}' symbol was not found in (or was not exported by) the imported template.`);
      return { from, decl };
    }
    const own = this.funcs.get(e.name);
    if (own) return { from: this, decl: own };
    const imported = this.imports.get(e.name);
    if (imported) {
      const decl = imported.from.funcs.get(imported.name);
      if (!decl) this.fail(e, 'BCP265', `The name "${e.name}" is not a function.`);
      return { from: imported.from, decl };
    }
    return undefined;
  }

  private call(e: Expr & { kind: 'call' }, ctx: EmitContext): string {
    const user = this.userFunction(e);
    if (user) {
      if (e.args.length !== user.decl.params.length)
        this.fail(e, 'BCP071', `Expected ${user.decl.params.length} argument${user.decl.params.length === 1 ? '' : 's'}, but got ${e.args.length}.`);
      const name = this.emittedName(user.from, 'func', user.decl.name);
      return `__bicep.${name}(${e.args.map((a) => this.expr(a, ctx)).join(', ')})`;
    }
    if (e.namespace !== undefined && e.namespace !== 'az' && e.namespace !== 'sys') {
      if (this.resources.has(e.namespace))
        this.fail(e, 'BCP109', `Resource functions such as ${e.namespace}.${e.name}() are not compiled by aksemu's Bicep compiler.`);
      this.fail(e, 'BCP057', `The name "${e.namespace}" does not exist in the current context.`);
    }
    const operator = OPERATOR_FUNCTIONS[e.name];
    if (operator) this.fail(e, 'BCP069', `The function "${e.name}" is not supported. Use the "${operator}" operator instead.`);
    if (!isBicepFunction(e.name)) this.fail(e, 'BCP057', `The name "${e.name}" does not exist in the current context.`);
    if (e.name === 'any') {
      if (e.args.length !== 1) this.fail(e, 'BCP071', `Expected 1 argument, but got ${e.args.length}.`);
      return this.expr(e.args[0]!, ctx);
    }
    const loaded = this.loadFunction(e);
    if (loaded !== undefined) return this.jsonExpr(loaded);
    if (e.name === 'loadYamlContent' || e.name === 'loadDirectoryFileInfo' || e.name === 'readEnvironmentVariable')
      this.fail(e, 'BCP057', `aksemu's Bicep compiler does not evaluate ${e.name}(); use loadTextContent or loadJsonContent.`);
    return `${e.name}(${e.args.map((a) => this.expr(a, ctx)).join(', ')})`;
  }
}
