// The Bicep syntax tree the parser builds and the emitter turns into ARM JSON.

export interface Pos {
  line: number;
  column: number;
}

export type Expr = Pos &
  (
    | { kind: 'string'; segments: string[]; holes: Expr[] }
    | { kind: 'number'; value: number }
    | { kind: 'bool'; value: boolean }
    | { kind: 'null' }
    | { kind: 'ident'; name: string }
    | { kind: 'call'; namespace?: string; name: string; args: Expr[] }
    | { kind: 'member'; target: Expr; name: string; safe: boolean }
    | { kind: 'index'; target: Expr; index: Expr; safe: boolean }
    | { kind: 'unary'; op: '!' | '-'; operand: Expr }
    | { kind: 'binary'; op: string; left: Expr; right: Expr }
    | { kind: 'ternary'; condition: Expr; then: Expr; else: Expr }
    | { kind: 'object'; properties: Property[]; resources: ResourceDecl[] }
    | { kind: 'array'; items: Expr[] }
    | { kind: 'for'; item?: string; index?: string; source: Expr; body: Expr }
    | { kind: 'if'; condition: Expr; body: Expr }
    /** `x => …`, `(acc, x) => …`. */
    | { kind: 'lambda'; params: string[]; body: Expr }
    /** `...x` as an array item. */
    | { kind: 'spread'; value: Expr }
  );

export interface Property extends Pos {
  /** '' for a spread (`...x`) member. */
  key: string;
  value: Expr;
  spread?: boolean;
}

export interface Decorator extends Pos {
  name: string;
  args: Expr[];
}

/** A type expression: `string`, `'a' | 'b'`, `{ x: int? }`, `string[]`, `[int, string]`, `myType`, `ns.myType`. */
export type TypeExpr = Pos &
  (
    | { kind: 'ref'; name: string; namespace?: string }
    | { kind: 'literal'; value: string | number | boolean | null }
    | { kind: 'object'; properties: TypeProperty[]; additional?: { type: TypeExpr; decorators: Decorator[] } }
    | { kind: 'array'; items: TypeExpr }
    | { kind: 'tuple'; items: Array<{ type: TypeExpr; decorators: Decorator[] }> }
    | { kind: 'union'; members: TypeExpr[] }
    | { kind: 'nullable'; base: TypeExpr }
  );

export interface TypeProperty extends Pos {
  key: string;
  type: TypeExpr;
  decorators: Decorator[];
}

export interface ParamDecl extends Pos {
  kind: 'param';
  name: string;
  type: TypeExpr;
  defaultValue?: Expr;
  decorators: Decorator[];
}

export interface VarDecl extends Pos {
  kind: 'var';
  name: string;
  type?: TypeExpr;
  value: Expr;
  decorators: Decorator[];
}

export interface ResourceDecl extends Pos {
  kind: 'resource';
  name: string;
  /** As written: 'Microsoft.X/y@2022-01-01' (or 'y@…' nested). */
  typeText: string;
  /** Where the type string is, for errors about it. */
  typeAt: Pos;
  existing: boolean;
  /** The object, or `if (c) {…}`, or `[for …: …]`. */
  value: Expr;
  decorators: Decorator[];
  /** Set for nested resource declarations. */
  parentSymbol?: string;
}

export interface ModuleDecl extends Pos {
  kind: 'module';
  name: string;
  /** The path as written ('./vnet.bicep'). */
  path: string;
  pathAt: Pos;
  value: Expr;
  decorators: Decorator[];
}

export interface OutputDecl extends Pos {
  kind: 'output';
  name: string;
  type: TypeExpr;
  value: Expr;
  decorators: Decorator[];
}

export interface TypeDecl extends Pos {
  kind: 'type';
  name: string;
  type: TypeExpr;
  decorators: Decorator[];
}

export interface FuncDecl extends Pos {
  kind: 'func';
  name: string;
  params: Array<{ name: string; type: TypeExpr }>;
  returns: TypeExpr;
  body: Expr;
  decorators: Decorator[];
}

export interface ImportDecl extends Pos {
  kind: 'import';
  path: string;
  pathAt: Pos;
  /** `import {a, b as c} from …`: each name and its local alias. */
  items?: Array<Pos & { name: string; alias: string }>;
  /** `import * as ns from …`. */
  wildcard?: string;
}

export interface MetadataDecl extends Pos {
  kind: 'metadata';
  name: string;
  value: Expr;
}

interface TargetScopeDecl extends Pos {
  kind: 'targetScope';
  value: Expr;
}

export type Statement = ParamDecl | VarDecl | ResourceDecl | ModuleDecl | OutputDecl | TypeDecl | FuncDecl | ImportDecl | MetadataDecl | TargetScopeDecl;
