/** A module of the sample service (sample-project.ts), with what a careful reader would say of it. */
export interface SampleModule {
  path: string;
  content: string;
  finding: string;
}

/** A file's content, one argument a line. */
export const lines = (...text: string[]) => `${text.join('\n')}\n`;
