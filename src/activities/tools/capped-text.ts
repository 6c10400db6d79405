/**
 * Collects a stream of text keeping only its head and tail, so a command that prints megabytes
 * costs bounded memory and the model still sees how the output started and how it ended.
 */
export class CappedText {
  private head = '';
  private tail = '';
  private omitted = 0;
  private readonly headLimit: number;
  private readonly tailLimit: number;

  constructor(limit: number) {
    this.headLimit = Math.ceil(limit / 2);
    this.tailLimit = Math.floor(limit / 2);
  }

  append(chunk: string): void {
    let rest = chunk;
    const headRoom = this.headLimit - this.head.length;
    if (headRoom > 0) {
      this.head += rest.slice(0, headRoom);
      rest = rest.slice(headRoom);
    }
    if (rest === '') return;
    this.tail += rest;
    if (this.tail.length > this.tailLimit) {
      this.omitted += this.tail.length - this.tailLimit;
      this.tail = this.tail.slice(this.tail.length - this.tailLimit);
    }
  }

  get truncated(): boolean {
    return this.omitted > 0;
  }

  get isEmpty(): boolean {
    return this.head === '';
  }

  toString(): string {
    if (this.omitted === 0) return this.head + this.tail;
    return `${this.head}\n[… ${this.omitted} chars omitted …]\n${this.tail}`;
  }
}
