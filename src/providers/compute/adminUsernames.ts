// The admin user names Azure refuses for a Linux VM: the Compute RP's list, which az's validator
// (azure-cli _validators.py) checks too before it sends anything.
const DISALLOWED = new Set([
  'administrator',
  'admin',
  'user',
  'user1',
  'test',
  'user2',
  'test1',
  'user3',
  'admin1',
  '1',
  '123',
  'a',
  'actuser',
  'adm',
  'admin2',
  'aspnet',
  'backup',
  'console',
  'david',
  'guest',
  'john',
  'owner',
  'root',
  'server',
  'sql',
  'support',
  'support_388945a0',
  'sys',
  'test2',
  'test3',
  'user4',
  'user5',
]);

export function isDisallowedAdminUsername(name: string): boolean {
  return DISALLOWED.has(name.toLowerCase());
}
