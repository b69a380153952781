// pgpass (the ~/.pgpass reader pg itself uses) ships no types: the one call we make.
declare module "pgpass" {
  function pgpass(connection: { host?: string; port?: number | string; database?: string; user?: string }, callback: (password: string | undefined) => void): void;
  export default pgpass;
}
