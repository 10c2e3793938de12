/** Every permission the platform knows; `*` in the auth file stands for all of them. */
export const PERMISSIONS = [
  'resources/read',
  'resources/write',
  'files/write',
  'projects/create',
  'projects/write',
  'organizations/create',
  'organizations/write',
  'acls/read',
  'acls/write',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export const ALL_PERMISSIONS = '*';

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}
