/**
 * Imports a package of bench/peers/node_modules. The specifier is a variable on
 * purpose: the repository's type check (which covers bench/) must pass on a
 * checkout where bench/peers/install.sh has not run, so these packages'
 * types are declared locally, for the few calls the drivers make.
 */
export async function importPeerPackage<T>(name: string): Promise<T> {
  const specifier: string = name;
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    throw new Error(`cannot load ${name} (${(error as Error).message}): run bench/peers/install.sh`);
  }
}
