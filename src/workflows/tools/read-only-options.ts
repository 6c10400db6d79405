import type { OptionSpec } from './option-parser';

/**
 * The options each inspection command may be given and stay read-only, from the GNU coreutils,
 * grep, diffutils, file, tree and ripgrep manuals. Only options that neither write, nor run a
 * program, nor read paths the words do not name are listed; a value that is a file (grep -f) is a
 * word the workspace rule checks. Where unsure whether a long option's value may be the next word,
 * it is listed as taking its value after `=` only: the next word is then checked on its own.
 */

const HELP = ['help', 'version'];

const WRITES = 'writes a file';
const NAMES_FROM_FILE = 'reads the names of the files to read from a file';

const ls: OptionSpec = {
  flags: 'aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1',
  valued: 'ITw',
  longFlags: [
    ...HELP,
    ...['all', 'almost-all', 'author', 'escape', 'ignore-backups', 'directory', 'dired', 'file-type'],
    ...['full-time', 'group-directories-first', 'no-group', 'human-readable', 'si', 'inode', 'kibibytes'],
    ...['dereference-command-line', 'dereference-command-line-symlink-to-dir', 'dereference', 'literal'],
    ...['numeric-uid-gid', 'hide-control-chars', 'show-control-chars', 'quote-name', 'reverse'],
    ...['recursive', 'size', 'context', 'zero'],
  ],
  longValued: ['block-size', 'hide', 'ignore', 'format', 'indicator-style', 'quoting-style', 'sort', 'width'],
  longOptional: ['color', 'hyperlink', 'classify', 'time', 'time-style', 'tabsize'],
  globsAreHarmless: true,
};

const cat: OptionSpec = {
  flags: 'AbeEnstTuv',
  longFlags: [
    ...HELP,
    ...['show-all', 'number-nonblank', 'show-ends', 'number', 'squeeze-blank', 'show-tabs'],
    'show-nonprinting',
  ],
  globsAreHarmless: true,
};

const head: OptionSpec = {
  flags: 'qvz',
  valued: 'cn',
  longFlags: [...HELP, 'quiet', 'silent', 'verbose', 'zero-terminated'],
  longValued: ['bytes', 'lines'],
  numberOption: true,
  globsAreHarmless: true,
};

/** tail -f follows forever: still read-only, the call's timeout ends it. */
const tail: OptionSpec = {
  flags: 'fFqvz',
  valued: 'cns',
  longFlags: [...HELP, 'quiet', 'silent', 'verbose', 'zero-terminated', 'retry'],
  longValued: ['bytes', 'lines', 'pid', 'sleep-interval', 'max-unchanged-stats'],
  longOptional: ['follow'],
  numberOption: true,
  globsAreHarmless: true,
};

const wc: OptionSpec = {
  flags: 'cmlLw',
  longFlags: [...HELP, 'bytes', 'chars', 'lines', 'max-line-length', 'words'],
  longOptional: ['total'],
  dangerous: { 'files0-from': NAMES_FROM_FILE },
};

const grep: OptionSpec = {
  flags: 'EFGPiyvwxclLoqsbHhnTZzaIrRUV0123456789',
  valued: 'efmABCdD',
  longFlags: [
    ...HELP,
    ...['extended-regexp', 'fixed-strings', 'basic-regexp', 'perl-regexp', 'ignore-case', 'no-ignore-case'],
    ...['word-regexp', 'line-regexp', 'null-data', 'no-messages', 'invert-match', 'byte-offset'],
    ...['line-number', 'line-buffered', 'with-filename', 'no-filename', 'only-matching', 'quiet', 'silent'],
    ...['text', 'recursive', 'dereference-recursive', 'files-without-match', 'files-with-matches'],
    ...['count', 'initial-tab', 'null', 'no-group-separator', 'binary'],
  ],
  longValued: [
    ...['regexp', 'file', 'max-count', 'label', 'binary-files', 'directories', 'devices', 'include'],
    ...['exclude', 'exclude-from', 'exclude-dir', 'before-context', 'after-context'],
  ],
  longOptional: ['color', 'colour', 'context', 'group-separator'],
  // A file named --file=.. or -f.. makes grep read a directory; names cannot hold a slash.
  globsAreHarmless: true,
};

const stat: OptionSpec = {
  flags: 'Lft',
  valued: 'c',
  longFlags: [...HELP, 'dereference', 'file-system', 'terse'],
  longValued: ['format', 'printf'],
  longOptional: ['cached'],
  globsAreHarmless: true,
};

const du: OptionSpec = {
  flags: '0abcDhHklLmPsSx',
  valued: 'BdtX',
  longFlags: [
    ...HELP,
    ...['null', 'all', 'apparent-size', 'bytes', 'total', 'dereference-args', 'human-readable', 'inodes'],
    ...['count-links', 'dereference', 'no-dereference', 'separate-dirs', 'si', 'summarize'],
    'one-file-system',
  ],
  longValued: ['block-size', 'max-depth', 'threshold', 'exclude', 'exclude-from'],
  longOptional: ['time', 'time-style'],
  dangerous: { 'files0-from': NAMES_FROM_FILE },
};

const df: OptionSpec = {
  flags: 'ahHiklPTv',
  valued: 'Btx',
  longFlags: [
    ...HELP,
    'all',
    'human-readable',
    'si',
    'inodes',
    'local',
    'portability',
    'print-type',
    'total',
  ],
  longValued: ['block-size', 'type', 'exclude-type'],
  longOptional: ['output', 'sync', 'no-sync'],
  globsAreHarmless: true,
};

const cut: OptionSpec = {
  flags: 'nsz',
  valued: 'bcdf',
  longFlags: [...HELP, 'complement', 'only-delimited', 'zero-terminated'],
  longValued: ['bytes', 'characters', 'delimiter', 'fields', 'output-delimiter'],
  globsAreHarmless: true,
};

const nl: OptionSpec = {
  flags: 'p',
  valued: 'bdfhilnsvw',
  longFlags: [...HELP, 'no-renumber'],
  longValued: [
    ...['body-numbering', 'section-delimiter', 'footer-numbering', 'header-numbering', 'line-increment'],
    ...['join-blank-lines', 'number-format', 'number-separator', 'starting-line-number', 'number-width'],
  ],
  globsAreHarmless: true,
};

/** Not -l/--paginate (runs pr), nor --from-file/--to-file (a file compared with every operand). */
const diff: OptionSpec = {
  flags: 'abBcdeEHinNpqrstTuwyZ',
  valued: 'CDFIUSWxX',
  longFlags: [
    ...HELP,
    ...['text', 'ignore-space-change', 'ignore-blank-lines', 'minimal', 'ed', 'ignore-tab-expansion'],
    ...['ignore-case', 'rcs', 'new-file', 'show-c-function', 'brief', 'recursive', 'normal'],
    ...['report-identical-files', 'expand-tabs', 'initial-tab', 'ignore-all-space', 'side-by-side'],
    ...['ignore-trailing-space', 'strip-trailing-cr', 'suppress-common-lines', 'suppress-blank-empty'],
    ...['left-column', 'speed-large-files', 'unidirectional-new-file', 'no-dereference'],
    ...['ignore-file-name-case', 'no-ignore-file-name-case'],
  ],
  longValued: [
    ...['ifdef', 'show-function-line', 'ignore-matching-lines', 'starting-file', 'width', 'exclude'],
    ...['exclude-from', 'label', 'line-format', 'old-line-format', 'new-line-format'],
    ...['unchanged-line-format', 'old-group-format', 'new-group-format', 'changed-group-format'],
    ...['unchanged-group-format', 'horizon-lines', 'tabsize', 'palette'],
  ],
  longOptional: ['unified', 'context', 'color'],
  dangerous: {
    l: 'runs pr',
    paginate: 'runs pr',
    'to-file': 'compares every operand with a file',
    'from-file': 'compares a file with every operand',
  },
};

const cmp: OptionSpec = {
  flags: 'blsv',
  valued: 'in',
  longFlags: [...HELP, 'print-bytes', 'verbose', 'quiet', 'silent'],
  longValued: ['ignore-initial', 'bytes'],
  globsAreHarmless: true,
};

const basename: OptionSpec = {
  flags: 'az',
  valued: 's',
  longFlags: [...HELP, 'multiple', 'zero'],
  longValued: ['suffix'],
  globsAreHarmless: true,
};

const dirname: OptionSpec = { flags: 'z', longFlags: [...HELP, 'zero'], globsAreHarmless: true };

const realpath: OptionSpec = {
  flags: 'emLPqsz',
  longFlags: [
    ...HELP,
    ...['canonicalize-existing', 'canonicalize-missing', 'logical', 'physical', 'quiet', 'strip'],
    ...['no-symlinks', 'zero'],
  ],
  longValued: ['relative-to', 'relative-base'],
  globsAreHarmless: true,
};

const readlink: OptionSpec = {
  flags: 'femnqsvz',
  longFlags: [
    ...HELP,
    ...['canonicalize', 'canonicalize-existing', 'canonicalize-missing', 'no-newline', 'quiet'],
    ...['silent', 'verbose', 'zero'],
  ],
  globsAreHarmless: true,
};

/** Not -c/--check: it reads every file named in the checksum file. */
const checksum: OptionSpec = {
  flags: 'btz',
  longFlags: [...HELP, 'binary', 'text', 'tag', 'zero'],
  dangerous: { c: NAMES_FROM_FILE, check: NAMES_FROM_FILE },
};

const sort: OptionSpec = {
  flags: 'bdfghiMnRrVcCmsuz',
  valued: 'ktS',
  longFlags: [
    ...HELP,
    ...['ignore-leading-blanks', 'dictionary-order', 'ignore-case', 'general-numeric-sort'],
    ...['human-numeric-sort', 'ignore-nonprinting', 'month-sort', 'numeric-sort', 'random-sort'],
    ...['reverse', 'version-sort', 'merge', 'stable', 'unique', 'zero-terminated', 'debug'],
  ],
  longValued: ['key', 'field-separator', 'sort', 'buffer-size', 'parallel'],
  longOptional: ['check'],
  dangerous: {
    o: WRITES,
    output: WRITES,
    T: 'writes temporary files into a directory',
    'temporary-directory': 'writes temporary files into a directory',
    'compress-program': 'runs a program',
    'files0-from': NAMES_FROM_FILE,
  },
};

/** uniq's second operand is its output file: see the positional rule in the classifier. */
const uniq: OptionSpec = {
  flags: 'cdDiuz',
  valued: 'fsw',
  longFlags: [...HELP, 'count', 'repeated', 'ignore-case', 'unique', 'zero-terminated'],
  longValued: ['skip-fields', 'skip-chars', 'check-chars'],
  longOptional: ['all-repeated', 'group'],
};

/** Not -C (compiles magic: writes), -z/-Z (run decompressors), -p (sets file times), -f. */
const file: OptionSpec = {
  flags: 'bdEhikLlNnrsv0',
  valued: 'eF',
  longFlags: [
    ...HELP,
    ...['brief', 'mime', 'mime-type', 'mime-encoding', 'keep-going', 'dereference', 'no-dereference'],
    ...['no-pad', 'no-buffer', 'raw', 'special-files', 'print0', 'extension', 'apple'],
  ],
  longValued: ['exclude', 'exclude-quiet', 'separator'],
  dangerous: {
    C: 'compiles a magic file (writes magic.mgc)',
    compile: 'compiles a magic file (writes magic.mgc)',
    z: 'runs decompressors',
    uncompress: 'runs decompressors',
    Z: 'runs decompressors',
    'uncompress-noreport': 'runs decompressors',
    p: 'sets the files’ access times',
    'preserve-date': 'sets the files’ access times',
    f: NAMES_FROM_FILE,
    'files-from': NAMES_FROM_FILE,
  },
};

/**
 * tree reads a value option's value from the next word even inside a cluster (-Lo 2 out is -L 2
 * -o out). Its long options are listed as taking values after `=` only (versions differ).
 */
const tree: OptionSpec = {
  flags: 'adlfxiASnCqNQpugshDFvtcUrJX',
  valued: 'LPI',
  valuesFromNextWords: true,
  longFlags: [
    ...HELP,
    ...['noreport', 'dirsfirst', 'filesfirst', 'inodes', 'device', 'du', 'si', 'prune', 'matchdirs'],
    ...['ignore-case', 'gitignore', 'metafirst'],
  ],
  longOptional: ['charset', 'filelimit', 'timefmt', 'sort'],
  dangerous: {
    o: WRITES,
    R: 'writes an index into every directory (with -H)',
    fromfile: 'reads the listing from a file',
    fromtabfile: 'reads the listing from a file',
  },
};

/** Not --pre (runs a program on every file), -z (runs decompressors), --hostname-bin (runs it). */
const rg: OptionSpec = {
  flags: 'abcFHiIlLnNopPqsSuUvVwx0.',
  valued: 'ABCdeEfgjmMrtT',
  longFlags: [
    ...HELP,
    ...['files', 'files-with-matches', 'files-without-match', 'count', 'count-matches'],
    ...['fixed-strings', 'hidden', 'no-ignore', 'no-ignore-vcs', 'no-ignore-parent', 'no-ignore-dot'],
    ...['no-ignore-global', 'no-ignore-exclude', 'no-ignore-files', 'ignore-case', 'smart-case'],
    ...['case-sensitive', 'line-number', 'no-line-number', 'heading', 'no-heading', 'with-filename'],
    ...['no-filename', 'only-matching', 'invert-match', 'word-regexp', 'line-regexp', 'multiline'],
    ...['multiline-dotall', 'follow', 'no-follow', 'json', 'vimgrep', 'type-list', 'stats', 'trim'],
    ...['no-messages', 'quiet', 'null', 'null-data', 'column', 'no-column', 'text', 'binary'],
    ...['no-binary', 'passthru', 'byte-offset', 'crlf', 'no-unicode', 'pcre2', 'no-config'],
    ...['include-zero', 'one-file-system', 'unrestricted'],
  ],
  longValued: [
    ...['after-context', 'before-context', 'context', 'max-count', 'max-depth', 'max-filesize'],
    ...['glob', 'iglob', 'type', 'type-not', 'regexp', 'file', 'threads', 'encoding', 'replace'],
    ...['sort', 'sortr', 'color', 'colors', 'context-separator', 'max-columns', 'ignore-file'],
  ],
  dangerous: {
    pre: 'runs a program on every file',
    'pre-glob': 'chooses the files --pre runs a program on',
    z: 'runs decompression programs',
    'search-zip': 'runs decompression programs',
    'hostname-bin': 'runs a program',
  },
};

/**
 * Builtins: cd and pwd take -L and -P only. cd's globs are not harmless: one that expands to -L
 * or -P alone leaves cd without a directory, so it goes to $HOME (`cd ?L; cat .ssh/id_rsa`).
 */
const cd: OptionSpec = { flags: 'LP' };
const pwd: OptionSpec = { flags: 'LP', globsAreHarmless: true };
const which: OptionSpec = { flags: 'as', globsAreHarmless: true };

export const READ_ONLY_OPTIONS = {
  ls,
  cat,
  head,
  tail,
  wc,
  grep,
  egrep: grep,
  fgrep: grep,
  stat,
  du,
  df,
  cut,
  nl,
  diff,
  cmp,
  basename,
  dirname,
  realpath,
  readlink,
  sha256sum: checksum,
  md5sum: checksum,
  sort,
  uniq,
  file,
  tree,
  rg,
  cd,
  pwd,
  which,
} satisfies Readonly<Record<string, OptionSpec>>;
