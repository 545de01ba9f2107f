// Streaming decompression throughput of one compressed file, for choosing the gzip and zstd
// libraries (README.md, Dependencies): reads FILE in 1 MiB pieces and decompresses into a 1 MiB
// buffer (libdeflate, which cannot stream, decompresses the whole file into memory).
// Build: gcc -O2 -o /tmp/decompress_speed bench/decompress_speed.c -lz -lisal -lzstd -ldeflate
// Usage: decompress_speed zlib|isal|deflate FILE.gz ; decompress_speed zstd FILE.zst
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <zlib.h>
#include <isa-l/igzip_lib.h>
#include <zstd.h>
#include <libdeflate.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define IN (1<<20)
#define OUT (1<<20)
int main(int argc,char**argv){
  int fd=open(argv[2],O_RDONLY); static unsigned char in[IN]; static unsigned char out[OUT];
  unsigned long long total=0; double t0=now();
  if(!strcmp(argv[1],"zlib")){
    z_stream z; memset(&z,0,sizeof z); inflateInit2(&z,16+15);
    ssize_t n;
    while((n=read(fd,in,IN))>0){ z.next_in=in; z.avail_in=n;
      while(z.avail_in>0){ z.next_out=out; z.avail_out=OUT; int r=inflate(&z,Z_NO_FLUSH);
        total+=OUT-z.avail_out; if(r==Z_STREAM_END){inflateReset(&z);} else if(r!=Z_OK&&r!=Z_BUF_ERROR){fprintf(stderr,"err %d\n",r);return 1;} }
    }
  } else if(!strcmp(argv[1],"isal")){
    struct inflate_state s; isal_inflate_init(&s); s.crc_flag=ISAL_GZIP;
    ssize_t n;
    while((n=read(fd,in,IN))>0){ s.next_in=in; s.avail_in=n;
      while(s.avail_in>0 || 1){ s.next_out=out; s.avail_out=OUT; int r=isal_inflate(&s);
        if(r!=ISAL_DECOMP_OK){fprintf(stderr,"err %d\n",r);return 1;}
        total+=OUT-s.avail_out;
        if(s.block_state==ISAL_BLOCK_FINISH){ unsigned char*ni=s.next_in; unsigned ai=s.avail_in; isal_inflate_reset(&s); s.crc_flag=ISAL_GZIP; s.next_in=ni; s.avail_in=ai; if(ai==0)break; continue;}
        if(s.avail_in==0 && s.avail_out>0) break; }
    }
  } else if(!strcmp(argv[1],"zstd")){
    ZSTD_DCtx*d=ZSTD_createDCtx(); ssize_t n;
    while((n=read(fd,in,IN))>0){ ZSTD_inBuffer ib={in,(size_t)n,0};
      while(ib.pos<ib.size){ ZSTD_outBuffer ob={out,OUT,0}; size_t r=ZSTD_decompressStream(d,&ob,&ib);
        if(ZSTD_isError(r)){fprintf(stderr,"%s\n",ZSTD_getErrorName(r));return 1;} total+=ob.pos;}
      // drain
      for(;;){ ZSTD_inBuffer e={in,0,0}; ZSTD_outBuffer ob={out,OUT,0}; ZSTD_decompressStream(d,&ob,&e); total+=ob.pos; if(ob.pos<OUT)break;}
    }
  } else { // libdeflate whole file (not streaming): mmap input, output to a big buffer
    struct stat st; fstat(fd,&st); unsigned char*m=mmap(0,st.st_size,PROT_READ,MAP_PRIVATE,fd,0);
    size_t cap=(size_t)st.st_size*12; unsigned char*o=malloc(cap);
    struct libdeflate_decompressor*d=libdeflate_alloc_decompressor(); size_t off=0;
    while(off<(size_t)st.st_size){ size_t ain,aout; int r=libdeflate_gzip_decompress_ex(d,m+off,st.st_size-off,o,cap,&ain,&aout); if(r){fprintf(stderr,"err %d\n",r);return 1;} off+=ain; total+=aout; }
  }
  double t=now()-t0; printf("%s: %llu bytes in %.3f s = %.0f MB/s\n",argv[1],total,t,total/t/1e6); return 0;}
