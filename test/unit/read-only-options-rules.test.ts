import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyShellCommand } from '../../src/workflows/tools/shell-command-classifier';
import { optionForms, type ManualOptions } from './option-forms';

/**
 * Which options of each inspection command leave a call read-only (issue 27: mutation testing),
 * one command at a time, through the classifier's public verdict. The lists come from the GNU
 * coreutils, grep, diffutils, file, tree and ripgrep manuals and are written here as the
 * specification: an option dropped from read-only-options.ts fails its command's test, and each
 * option that writes, runs a program or reads paths the words do not name is refused with its own
 * reason, also when abbreviated. tools-classifier.test.ts shows the rules on everyday commands.
 */

const READ_ONLY = { readOnly: true, reason: 'every part is a known read-only command' };

function assertReadOnly(commands: readonly string[]): void {
  for (const command of commands) assert.deepEqual(classifyShellCommand(command), READ_ONLY, command);
}

function assertRefused(cases: ReadonlyArray<readonly [command: string, reason: string]>): void {
  for (const [command, reason] of cases)
    assert.deepEqual(classifyShellCommand(command), { readOnly: false, reason }, command);
}

/** Every GNU program here has these. */
const HELP = ['help', 'version'];

const WRITES = 'writes a file';
const NAMES_FROM_FILE = 'reads the names of the files to read from a file';

/** A word that starts with a glob may expand to option-like file names (a file named `-o`). */
const globMayBeOptions = (program: string) => `* may expand to file names that ${program} reads as options`;

test('ls: every flag alone and clustered, -I -T -w with a value glued or next, its long options, and a glob stay read-only', () => {
  assertReadOnly(
    optionForms('ls', {
      flags: 'aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1',
      valued: 'ITw',
      longFlags: [
        ...HELP,
        ...['all', 'almost-all', 'author', 'escape', 'ignore-backups', 'directory', 'dired', 'file-type'],
        ...['full-time', 'group-directories-first', 'no-group', 'human-readable', 'si', 'inode'],
        ...['kibibytes', 'dereference-command-line', 'dereference-command-line-symlink-to-dir'],
        ...['dereference', 'literal', 'numeric-uid-gid', 'hide-control-chars', 'show-control-chars'],
        ...['quote-name', 'reverse', 'recursive', 'size', 'context', 'zero'],
      ],
      longValued: [
        'block-size',
        'hide',
        'ignore',
        'format',
        'indicator-style',
        'quoting-style',
        'sort',
        'width',
      ],
      longOptional: ['color', 'hyperlink', 'classify', 'time', 'time-style', 'tabsize'],
    }),
  );
  assertReadOnly(['ls *', 'ls -la *.md', 'ls -- *']);
  assertRefused([['ls -j', 'ls -j is not a known read-only option']]);
});

test('cat: every flag alone and clustered, its long options, and a glob stay read-only', () => {
  assertReadOnly(
    optionForms('cat', {
      flags: 'AbeEnstTuv',
      longFlags: [
        ...HELP,
        ...['show-all', 'number-nonblank', 'show-ends', 'number', 'squeeze-blank', 'show-tabs'],
        'show-nonprinting',
      ],
    }),
  );
  assertReadOnly(['cat *', 'cat -n *.md']);
});

test('head: -q -v -z, -c and -n with a value, -NUM, its long options, and a glob stay read-only', () => {
  assertReadOnly(
    optionForms('head', {
      flags: 'qvz',
      valued: 'cn',
      longFlags: [...HELP, 'quiet', 'silent', 'verbose', 'zero-terminated'],
      longValued: ['bytes', 'lines'],
    }),
  );
  assertReadOnly(['head -20 README.md', 'head -5', 'head *', 'head -n 5 *.md']);
});

test('tail: -f -F -q -v -z, -c -n -s with a value, -NUM, --follow[=how], its long options, and a glob stay read-only', () => {
  assertReadOnly(
    optionForms('tail', {
      flags: 'fFqvz',
      valued: 'cns',
      longFlags: [...HELP, 'quiet', 'silent', 'verbose', 'zero-terminated', 'retry'],
      longValued: ['bytes', 'lines', 'pid', 'sleep-interval', 'max-unchanged-stats'],
      longOptional: ['follow'],
    }),
  );
  assertReadOnly(['tail -20 app.log', 'tail -n +5 README.md', 'tail --follow=name app.log', 'tail -f *.log']);
});

test('wc: its flags and long options stay read-only; --files0-from reads the names of the files to read from a file, so a glob may be options', () => {
  assertReadOnly(
    optionForms('wc', {
      flags: 'cmlLw',
      longFlags: [...HELP, 'bytes', 'chars', 'lines', 'max-line-length', 'words'],
      longOptional: ['total'],
    }),
  );
  assertRefused([
    ['wc --files0-from=list.txt', `wc --files0-from ${NAMES_FROM_FILE}`],
    ['wc -l --files0-from list.txt', `wc --files0-from ${NAMES_FROM_FILE}`],
    ['wc --files0=list.txt', `wc --files0 may abbreviate --files0-from, which ${NAMES_FROM_FILE}`],
    ['wc --f=list.txt', `wc --f may abbreviate --files0-from, which ${NAMES_FROM_FILE}`],
    ['wc -l *', globMayBeOptions('wc')],
  ]);
});

const GREP: ManualOptions = {
  // -0 … -9 give the context, as -C NUM does.
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
};

test('grep, egrep and fgrep: every flag alone and clustered, each valued letter, their long options, and a glob stay read-only', () => {
  for (const program of ['grep', 'egrep', 'fgrep']) {
    assertReadOnly(optionForms(program, GREP));
    assertReadOnly([`${program} -rn TODO *`, `${program} -5 foo README.md`]);
  }
  // A file is named by the words, where the workspace rule sees it.
  assertRefused([['grep -f/etc/passwd .', 'names /etc/passwd outside the workspace']]);
});

test('stat: -L -f -t, -c with a value, --format and --printf, --cached[=when], and a glob stay read-only', () => {
  assertReadOnly(
    optionForms('stat', {
      flags: 'Lft',
      valued: 'c',
      longFlags: [...HELP, 'dereference', 'file-system', 'terse'],
      longValued: ['format', 'printf'],
      longOptional: ['cached'],
    }),
  );
  assertReadOnly(['stat -c %s *']);
});

test('du: its flags, -B -d -t -X with a value and its long options stay read-only; --files0-from reads the names from a file, so a glob may be options', () => {
  assertReadOnly(
    optionForms('du', {
      flags: '0abcDhHklLmPsSx',
      valued: 'BdtX',
      longFlags: [
        ...HELP,
        ...['null', 'all', 'apparent-size', 'bytes', 'total', 'dereference-args', 'human-readable'],
        ...['inodes', 'count-links', 'dereference', 'no-dereference', 'separate-dirs', 'si', 'summarize'],
        'one-file-system',
      ],
      longValued: ['block-size', 'max-depth', 'threshold', 'exclude', 'exclude-from'],
      longOptional: ['time', 'time-style'],
    }),
  );
  assertRefused([
    ['du --files0-from=list.txt', `du --files0-from ${NAMES_FROM_FILE}`],
    ['du --files0-f=list.txt', `du --files0-f may abbreviate --files0-from, which ${NAMES_FROM_FILE}`],
    ['du -sh *', globMayBeOptions('du')],
  ]);
});

test('df: its flags, -B -t -x with a value, its long options (--output is a field list), and a glob stay read-only', () => {
  assertReadOnly(
    optionForms('df', {
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
    }),
  );
  assertReadOnly(['df -h *', 'df --output=source,size .']);
});

test('cut: -n -s -z, -b -c -d -f with a value, its long options, and a glob stay read-only', () => {
  assertReadOnly(
    optionForms('cut', {
      flags: 'nsz',
      valued: 'bcdf',
      longFlags: [...HELP, 'complement', 'only-delimited', 'zero-terminated'],
      longValued: ['bytes', 'characters', 'delimiter', 'fields', 'output-delimiter'],
    }),
  );
  assertReadOnly(['cut -d: -f1 *']);
});

test('nl: -p, each valued letter, its long options, and a glob stay read-only', () => {
  assertReadOnly(
    optionForms('nl', {
      flags: 'p',
      valued: 'bdfhilnsvw',
      longFlags: [...HELP, 'no-renumber'],
      longValued: [
        ...['body-numbering', 'section-delimiter', 'footer-numbering', 'header-numbering', 'line-increment'],
        ...['join-blank-lines', 'number-format', 'number-separator', 'starting-line-number', 'number-width'],
      ],
    }),
  );
  assertReadOnly(['nl -ba *']);
});

test('diff: its flags, each valued letter and its long options stay read-only; -l/--paginate run pr, --from-file/--to-file compare with a file, a glob may be options', () => {
  assertReadOnly(
    optionForms('diff', {
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
    }),
  );
  assertRefused([
    ['diff -l a.txt b.txt', 'diff -l runs pr'],
    ['diff -rl a b', 'diff -l runs pr'],
    ['diff --paginate a.txt b.txt', 'diff --paginate runs pr'],
    ['diff --pag a.txt b.txt', 'diff --pag may abbreviate --paginate, which runs pr'],
    ['diff --to-file=x a.txt', 'diff --to-file compares every operand with a file'],
    ['diff --to=x a.txt', 'diff --to may abbreviate --to-file, which compares every operand with a file'],
    ['diff --from-file=x a.txt', 'diff --from-file compares a file with every operand'],
    [
      'diff --from=x a.txt',
      'diff --from may abbreviate --from-file, which compares a file with every operand',
    ],
    ['diff *.txt', '*.txt may expand to file names that diff reads as options'],
  ]);
});

test('cmp: -b -l -s -v, -i and -n with a value, its long options, and a glob stay read-only', () => {
  assertReadOnly(
    optionForms('cmp', {
      flags: 'blsv',
      valued: 'in',
      longFlags: [...HELP, 'print-bytes', 'verbose', 'quiet', 'silent'],
      longValued: ['ignore-initial', 'bytes'],
    }),
  );
  assertReadOnly(['cmp *']);
});

test('basename, dirname, realpath and readlink: their options from the manuals, and a glob, stay read-only', () => {
  assertReadOnly([
    ...optionForms('basename', {
      flags: 'az',
      valued: 's',
      longFlags: [...HELP, 'multiple', 'zero'],
      longValued: ['suffix'],
    }),
    ...optionForms('dirname', { flags: 'z', longFlags: [...HELP, 'zero'] }),
    ...optionForms('realpath', {
      flags: 'emLPqsz',
      longFlags: [
        ...HELP,
        ...['canonicalize-existing', 'canonicalize-missing', 'logical', 'physical', 'quiet', 'strip'],
        ...['no-symlinks', 'zero'],
      ],
      longValued: ['relative-to', 'relative-base'],
    }),
    ...optionForms('readlink', {
      flags: 'femnqsvz',
      longFlags: [
        ...HELP,
        ...['canonicalize', 'canonicalize-existing', 'canonicalize-missing', 'no-newline', 'quiet'],
        ...['silent', 'verbose', 'zero'],
      ],
    }),
  ]);
  assertReadOnly(['basename *', 'dirname *', 'realpath *', 'readlink -f *']);
});

test('sha256sum and md5sum: -b -t -z and their long options stay read-only; -c/--check reads the names of the files to read from a file, so a glob may be options', () => {
  for (const program of ['sha256sum', 'md5sum']) {
    assertReadOnly(
      optionForms(program, { flags: 'btz', longFlags: [...HELP, 'binary', 'text', 'tag', 'zero'] }),
    );
    assertRefused([
      [`${program} -c sums.txt`, `${program} -c ${NAMES_FROM_FILE}`],
      [`${program} -bc sums.txt`, `${program} -c ${NAMES_FROM_FILE}`],
      [`${program} --check sums.txt`, `${program} --check ${NAMES_FROM_FILE}`],
      [`${program} --ch sums.txt`, `${program} --ch may abbreviate --check, which ${NAMES_FROM_FILE}`],
      [`${program} *`, globMayBeOptions(program)],
    ]);
  }
});

test('sort: its flags, -k -t -S with a value and its long options stay read-only; -o writes, -T writes temporary files, --compress-program runs a program, --files0-from reads names from a file', () => {
  assertReadOnly(
    optionForms('sort', {
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
    }),
  );
  const temporary = 'writes temporary files into a directory';
  assertRefused([
    ['sort -o out.txt in.txt', `sort -o ${WRITES}`],
    ['sort -uo out.txt in.txt', `sort -o ${WRITES}`],
    ['sort --output=out.txt in.txt', `sort --output ${WRITES}`],
    ['sort --out=out.txt in.txt', `sort --out may abbreviate --output, which ${WRITES}`],
    ['sort -T tmp in.txt', `sort -T ${temporary}`],
    ['sort -nTtmp in.txt', `sort -T ${temporary}`],
    ['sort --temporary-directory=tmp in.txt', `sort --temporary-directory ${temporary}`],
    ['sort --tem=tmp in.txt', `sort --tem may abbreviate --temporary-directory, which ${temporary}`],
    ['sort --compress-program=sh in.txt', 'sort --compress-program runs a program'],
    ['sort --comp=sh in.txt', 'sort --comp may abbreviate --compress-program, which runs a program'],
    ['sort --files0-from=list.txt', `sort --files0-from ${NAMES_FROM_FILE}`],
    ['sort --files0=list.txt', `sort --files0 may abbreviate --files0-from, which ${NAMES_FROM_FILE}`],
    ['sort *', globMayBeOptions('sort')],
    // --random-source reads a file of its own choosing: not listed.
    ['sort -R --random-source=x in.txt', 'sort --random-source is not a known read-only option'],
  ]);
});

test('uniq: its flags, -f -s -w with a value and its long options stay read-only; a glob may be options', () => {
  assertReadOnly(
    optionForms('uniq', {
      flags: 'cdDiuz',
      valued: 'fsw',
      longFlags: [...HELP, 'count', 'repeated', 'ignore-case', 'unique', 'zero-terminated'],
      longValued: ['skip-fields', 'skip-chars', 'check-chars'],
      longOptional: ['all-repeated', 'group'],
    }),
  );
  assertRefused([['uniq *', globMayBeOptions('uniq')]]);
});

test('file: its flags, -e -F with a value and its long options stay read-only; -C compiles (writes), -z/-Z run decompressors, -p sets access times, -f reads names from a file', () => {
  assertReadOnly(
    optionForms('file', {
      flags: 'bdEhikLlNnrsv0',
      valued: 'eF',
      longFlags: [
        ...HELP,
        ...['brief', 'mime', 'mime-type', 'mime-encoding', 'keep-going', 'dereference', 'no-dereference'],
        ...['no-pad', 'no-buffer', 'raw', 'special-files', 'print0', 'extension', 'apple'],
      ],
      longValued: ['exclude', 'exclude-quiet', 'separator'],
    }),
  );
  const compiles = 'compiles a magic file (writes magic.mgc)';
  const decompresses = 'runs decompressors';
  const times = 'sets the files’ access times';
  assertRefused([
    ['file -C', `file -C ${compiles}`],
    ['file -bC', `file -C ${compiles}`],
    ['file --compile', `file --compile ${compiles}`],
    ['file --comp', `file --comp may abbreviate --compile, which ${compiles}`],
    ['file -z x.gz', `file -z ${decompresses}`],
    ['file --uncompress x.gz', `file --uncompress ${decompresses}`],
    ['file --uncomp x.gz', `file --uncomp may abbreviate --uncompress, which ${decompresses}`],
    ['file -Z x.gz', `file -Z ${decompresses}`],
    ['file --uncompress-noreport x.gz', `file --uncompress-noreport ${decompresses}`],
    [
      'file --uncompress-no x.gz',
      `file --uncompress-no may abbreviate --uncompress-noreport, which ${decompresses}`,
    ],
    ['file -p README.md', `file -p ${times}`],
    ['file --preserve-date README.md', `file --preserve-date ${times}`],
    ['file --pres README.md', `file --pres may abbreviate --preserve-date, which ${times}`],
    ['file -f names.txt', `file -f ${NAMES_FROM_FILE}`],
    ['file --files-from names.txt', `file --files-from ${NAMES_FROM_FILE}`],
    ['file --files names.txt', `file --files may abbreviate --files-from, which ${NAMES_FROM_FILE}`],
    ['file *', globMayBeOptions('file')],
    // -S turns file's own sandbox off, -m reads other magic files: not listed.
    ['file -S README.md', 'file -S is not a known read-only option'],
    ['file -m magic README.md', 'file -m is not a known read-only option'],
  ]);
});

test('tree: its flags, -L -P -I with the next word as value (inside a cluster too), and its long options stay read-only', () => {
  assertReadOnly(
    optionForms(
      'tree',
      {
        flags: 'adlfxiASnCqNQpugshDFvtcUrJX',
        valued: 'LPI',
        longFlags: [
          ...HELP,
          ...['noreport', 'dirsfirst', 'filesfirst', 'inodes', 'device', 'du', 'si', 'prune', 'matchdirs'],
          ...['ignore-case', 'gitignore', 'metafirst'],
        ],
        longOptional: ['charset', 'filelimit', 'timefmt', 'sort'],
      },
      { gluedLetterValues: false },
    ),
  );
  // Each value letter takes the next word, and the cluster goes on after it.
  assertReadOnly(['tree -LP 2 x', 'tree -LIa 2 node_modules src']);
});

test('tree: -o writes a file, -R writes an index into every directory, --fromfile and --fromtabfile read the listing from a file; a value letter cannot hide -o', () => {
  const fromFile = 'reads the listing from a file';
  assertRefused([
    ['tree -o listing.txt', `tree -o ${WRITES}`],
    ['tree -ao listing.txt', `tree -o ${WRITES}`],
    // -L takes "2", then the cluster goes on to -o: a glued value would have hidden it.
    ['tree -Lo 2 listing.txt', `tree -o ${WRITES}`],
    ['tree -R -H . src', 'tree -R writes an index into every directory (with -H)'],
    ['tree --fromfile listing.txt', `tree --fromfile ${fromFile}`],
    ['tree --fromtabfile listing.txt', `tree --fromtabfile ${fromFile}`],
    ['tree --fromt listing.txt', `tree --fromt may abbreviate --fromtabfile, which ${fromFile}`],
    ['tree --from listing.txt', `tree --from may abbreviate --fromfile, which ${fromFile}`],
    // The value is the next word even when letters follow: -L1 leaves -L without one.
    ['tree -L1', 'tree -L needs a value it can see'],
    ['tree ?', '? may expand to file names that tree reads as options'],
    // -H writes HTML with links and --infofile reads a file of its own: not listed.
    ['tree -H . src', 'tree -H is not a known read-only option'],
  ]);
});

test('rg: its flags, each valued letter and its long options stay read-only', () => {
  assertReadOnly(
    optionForms('rg', {
      // -. is --hidden.
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
    }),
  );
  assertReadOnly(["rg -i --glob '*.ts' foo", 'rg -A2 foo src']);
});

test('rg: --pre runs a program on every file, --pre-glob chooses those files, -z/--search-zip run decompression programs, --hostname-bin runs a program; a glob may be options', () => {
  const onEveryFile = 'runs a program on every file';
  const decompresses = 'runs decompression programs';
  assertRefused([
    ['rg --pre=sh pattern', `rg --pre ${onEveryFile}`],
    ['rg --pre sh pattern', `rg --pre ${onEveryFile}`],
    ['rg --pr=sh pattern', `rg --pr may abbreviate --pre, which ${onEveryFile}`],
    ["rg --pre-glob='*.gz' pattern", 'rg --pre-glob chooses the files --pre runs a program on'],
    [
      'rg --pre-g=x pattern',
      'rg --pre-g may abbreviate --pre-glob, which chooses the files --pre runs a program on',
    ],
    ['rg -z pattern', `rg -z ${decompresses}`],
    ['rg -iz pattern', `rg -z ${decompresses}`],
    ['rg --search-zip pattern', `rg --search-zip ${decompresses}`],
    ['rg --search pattern', `rg --search may abbreviate --search-zip, which ${decompresses}`],
    ['rg --hostname-bin=sh pattern', 'rg --hostname-bin runs a program'],
    ['rg --hostname=sh pattern', 'rg --hostname may abbreviate --hostname-bin, which runs a program'],
    ['rg pattern *', globMayBeOptions('rg')],
    // --type-add defines file types from a glob: not listed.
    ["rg --type-add 'x:*.x' -tx foo", 'rg --type-add is not a known read-only option'],
  ]);
});

test('cd and pwd take -L and -P, alone and clustered; which takes -a and -s; a glob stays read-only for pwd and which', () => {
  assertReadOnly(['cd -L src', 'cd -P src', 'cd -LP src', 'cd -P -- src']);
  assertReadOnly(['pwd -L', 'pwd -P', 'pwd -LP', 'pwd *']);
  assertReadOnly(['which -a node', 'which -s node', 'which -as node', 'which *']);
  assertRefused([
    ['cd -e src', 'cd -e is not a known read-only option'],
    ['pwd -e', 'pwd -e is not a known read-only option'],
    ['which -i node', 'which -i is not a known read-only option'],
  ]);
});

test('cd: a glob may expand to -L or -P alone, which leaves cd without a directory (so in $HOME): a word that starts with one is refused', () => {
  // With a file named -L in the workspace, `cd ?L; cat .ssh/id_rsa` would read the worker's key.
  assertRefused([
    ['cd ?L; cat .ssh/id_rsa', '?L may expand to file names that cd reads as options'],
    ['cd *', globMayBeOptions('cd')],
    ['cd -P *', globMayBeOptions('cd')],
  ]);
  // A glob that does not start the word cannot make an option.
  assertReadOnly(['cd s*', 'cd ./*']);
});
