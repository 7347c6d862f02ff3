/** An environment variable's name, as every definition, Compose import and matrix checks it. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
