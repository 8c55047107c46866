// The Bicep syntax tree the parser builds and the emitter turns into ARM JSON.

interface Pos {
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
  );

export interface Property extends Pos {
  key: string;
  value: Expr;
}

export interface Decorator extends Pos {
  name: string;
  args: Expr[];
}

export interface ParamDecl extends Pos {
  kind: 'param';
  name: string;
  type: string;
  defaultValue?: Expr;
  decorators: Decorator[];
}

export interface VarDecl extends Pos {
  kind: 'var';
  name: string;
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

export interface OutputDecl extends Pos {
  kind: 'output';
  name: string;
  type: string;
  value: Expr;
  decorators: Decorator[];
}

interface TargetScopeDecl extends Pos {
  kind: 'targetScope';
  value: Expr;
}

export type Statement = ParamDecl | VarDecl | ResourceDecl | OutputDecl | TargetScopeDecl;
